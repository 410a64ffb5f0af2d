// Package colors imports nothing: Color has a String method but no
// implements edge to fmt.Stringer.
package colors

// Color is a named integer type.
type Color int

// String names the color.
func (c Color) String() string {
	if c == 0 {
		return "red"
	}
	return "blue"
}
