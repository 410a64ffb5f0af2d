// Package model declares the types app builds, takes and reads.
package model

// Point is a struct with two fields.
type Point struct{ X, Y int }

// Rect nests Points.
type Rect struct{ Min, Max Point }

// Names is a named slice type.
type Names []string

// Shape is an interface parameter type.
type Shape interface {
	Area() int
}

// Area reads the fields of Rect and of its Points.
func (r Rect) Area() int { return (r.Max.X - r.Min.X) * (r.Max.Y - r.Min.Y) }

// Contains has a Point parameter; its receiver is not a parameter.
func (r Rect) Contains(p Point) bool { return p.X >= r.Min.X && p.X <= r.Max.X }
