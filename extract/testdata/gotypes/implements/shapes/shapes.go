// Package shapes declares interfaces and the types that satisfy them. It
// imports fmt and io, so its types implement fmt's and io's interfaces.
package shapes

import (
	"fmt"
	"io"
)

// Shape is satisfied by Square (value) and by *Circle and *secret.
type Shape interface {
	Area() float64
}

// Named is satisfied by Square and Label.
type Named interface {
	Name() string
}

// NamedShape embeds Shape and Named and declares no method of its own.
type NamedShape interface {
	Shape
	Named
}

// WriteNamer embeds an outside interface; nothing satisfies it.
type WriteNamer interface {
	io.Writer
	Named
}

// Empty is satisfied by every type and gets no implements edge.
type Empty interface{}

// Square satisfies Shape, Named, NamedShape and fmt.Stringer with its
// value method set.
type Square struct{ side float64 }

// Area of a square.
func (s Square) Area() float64 { return s.side * s.side }

// Name of a square.
func (s Square) Name() string { return "square" }

// String makes Square a fmt.Stringer.
func (s Square) String() string { return fmt.Sprint(s.side) }

// Circle satisfies Shape only through *Circle.
type Circle struct{ r float64 }

// Area of a circle.
func (c *Circle) Area() float64 { return 3 * c.r * c.r }

// Label is a named type that is not a struct.
type Label string

// Name of a label.
func (l Label) Name() string { return string(l) }

// Buf satisfies io.Writer through *Buf.
type Buf struct{ data []byte }

// Write appends p.
func (b *Buf) Write(p []byte) (int, error) {
	b.data = append(b.data, p...)
	return len(p), nil
}

// secret is unexported and satisfies Shape through *secret.
type secret struct{}

// Area of nothing.
func (*secret) Area() float64 { return 0 }

// A conversion in a package-level declaration, not a call.
var _ io.Writer = (*Buf)(nil)

// Describe calls the methods NamedShape gets from the interfaces it embeds.
func Describe(ns NamedShape) string {
	_ = ns.Area()
	return ns.Name()
}

// Flush calls an outside interface's method.
func Flush(w io.Writer) error {
	_, err := w.Write(nil)
	return err
}

// FlushRW calls a method io.ReadWriter has from io.Writer.
func FlushRW(rw io.ReadWriter) error {
	_, err := rw.Write(nil)
	return err
}

// Tag calls through an in-tree interface that embeds an outside one.
func Tag(wn WriteNamer) string {
	_, _ = wn.Write(nil)
	return wn.Name()
}
