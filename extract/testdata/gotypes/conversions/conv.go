// Package conversions converts and calls builtins: none of it is a call
// edge; methods called on converted values are.
package conversions

import (
	"strconv"
	"time"
)

// MyInt is an in-tree named type.
type MyInt int

// String has a value receiver.
func (m MyInt) String() string { return strconv.Itoa(int(m)) }

// Celsius is converted to.
type Celsius float64

// Names is a named slice.
type Names []string

// InTree converts to an in-tree type.
func InTree() MyInt { return MyInt(3) }

// Std converts to an outside type.
func Std() time.Duration { return time.Duration(5) * time.Second }

// Pointer converts nil to a pointer type.
func Pointer() *MyInt { return (*MyInt)(nil) }

// Slices converts between strings and byte slices.
func Slices() int {
	b := []byte("hi")
	s := string(b)
	return len(s) + cap(b)
}

// Builtins calls builtins only.
func Builtins() Names {
	n := append(Names(nil), "a")
	m := make(map[string]int)
	delete(m, "a")
	_ = new(MyInt)
	_ = min(1, 2)
	return n
}

// ToAny converts to an interface.
func ToAny(x MyInt) any { return any(x) }

// MethodOnConversion calls a method on a converted value.
func MethodOnConversion(n int) string { return MyInt(n).String() }

// InsideConversion calls a method inside a conversion.
func InsideConversion(d time.Duration) Celsius { return Celsius(d.Seconds()) }
