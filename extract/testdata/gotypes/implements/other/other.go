// Package other declares interfaces that types of shapes and colors
// satisfy although neither package imports this one.
package other

// Areaer is satisfied by shapes.Square (value), *shapes.Circle and
// *shapes.secret.
type Areaer interface {
	Area() float64
}

// Stringer is satisfied by shapes.Square and colors.Color.
type Stringer interface {
	String() string
}
