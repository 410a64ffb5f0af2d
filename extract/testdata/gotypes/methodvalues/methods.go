// Package methodvalues takes methods as values (method values and method
// expressions) and calls method expressions.
package methodvalues

// Counter has a pointer and a value method.
type Counter struct{ n int }

// Inc has a pointer receiver.
func (c *Counter) Inc() { c.n++ }

// Value has a value receiver.
func (c Counter) Value() int { return c.n }

// Reader is an interface whose method is taken as a value.
type Reader interface {
	Read() string
}

func do(f func()) { f() }

// MethodValue binds a method to a receiver and calls the result.
func MethodValue(c *Counter) {
	inc := c.Inc
	inc()
}

// MethodValueArg passes a method value.
func MethodValueArg(c *Counter) { do(c.Inc) }

// MethodExpr takes a method expression and calls the result.
func MethodExpr(c Counter) int {
	val := Counter.Value
	return val(c)
}

// MethodExprCalled calls a method expression directly.
func MethodExprCalled(c Counter) int { return Counter.Value(c) }

// PointerMethodExprCalled calls a method expression of *Counter.
func PointerMethodExprCalled(c *Counter) { (*Counter).Inc(c) }

// InterfaceMethodValue binds an interface method.
func InterfaceMethodValue(r Reader) string {
	read := r.Read
	return read()
}

// InterfaceMethodExpr calls an interface method expression.
func InterfaceMethodExpr(r Reader) string { return Reader.Read(r) }
