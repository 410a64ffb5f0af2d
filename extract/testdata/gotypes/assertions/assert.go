// Package assertions calls methods on the results of type assertions and
// on type switch variables.
package assertions

// Shape is asserted from.
type Shape interface {
	Area() float64
}

// Circle implements Shape with value receivers.
type Circle struct{ r float64 }

// Area of a circle.
func (c Circle) Area() float64 { return 3 * c.r * c.r }

// Radius is not part of Shape.
func (c Circle) Radius() float64 { return c.r }

// Square implements Shape with pointer receivers.
type Square struct{ side float64 }

// Area of a square.
func (s *Square) Area() float64 { return s.side * s.side }

// Side is not part of Shape.
func (s *Square) Side() float64 { return s.side }

// CommaOK asserts with comma-ok.
func CommaOK(x Shape) float64 {
	if c, ok := x.(Circle); ok {
		return c.Radius()
	}
	return 0
}

// Direct calls on the assertion itself.
func Direct(x Shape) float64 { return x.(*Square).Side() }

// Switch has one type per case: the variable has that type.
func Switch(x Shape) float64 {
	switch s := x.(type) {
	case Circle:
		return s.Radius()
	case *Square:
		return s.Side()
	}
	return 0
}

// SwitchMulti has two types in one case: the variable keeps the type of x.
func SwitchMulti(x Shape) float64 {
	switch s := x.(type) {
	case Circle, *Square:
		return s.Area()
	}
	return 0
}

// SwitchDefault calls in the default clause: the variable keeps the type
// of x.
func SwitchDefault(x Shape) float64 {
	switch s := x.(type) {
	case nil:
		return 0
	default:
		return s.Area()
	}
}

// FromAny asserts an interface out of any.
func FromAny(v any) float64 {
	if sh, ok := v.(Shape); ok {
		return sh.Area()
	}
	return 0
}

// SwitchAny switches on any to a concrete type and to an interface.
func SwitchAny(v any) float64 {
	switch s := v.(type) {
	case *Square:
		return s.Area()
	case Shape:
		return s.Area()
	}
	return 0
}
