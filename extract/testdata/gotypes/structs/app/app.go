// Package app builds, takes and reads the types of model.
package app

import (
	"image"

	"example.com/structs/model"
)

// NewRect builds a Rect and a Point and writes their fields.
func NewRect(x, y int) *model.Rect {
	r := &model.Rect{}
	r.Max = model.Point{}
	r.Max.X, r.Max.Y = x, y
	return r
}

// Scale takes a *Rect and a Point.
func Scale(r *model.Rect, p model.Point, k int) model.Rect {
	out := *r
	out.Max.X = p.X * k
	return out
}

// Describe takes an interface and a named slice.
func Describe(s model.Shape, names model.Names) int { return s.Area() + len(names) }

// Result returns a Point: a result is not a parameter, a var is not a
// composite literal.
func Result() model.Point {
	var p model.Point
	return p
}

// Alloc uses new: not a composite literal.
func Alloc() *model.Point { return new(model.Point) }

// Elided builds Points with elided types inside a slice literal.
func Elided() []model.Point { return []model.Point{{}, {}} }

// List builds a named slice.
func List() model.Names { return model.Names{"a"} }

// Outside reads a field of an outside struct: no accesses_field edge.
func Outside() int {
	p := image.Pt(1, 2)
	return p.X
}

// InClosure reads fields inside a closure.
func InClosure(r *model.Rect) func() int {
	return func() int { return r.Min.Y }
}
