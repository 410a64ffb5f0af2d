// Package funcvalues calls through func-typed fields, variables,
// parameters and results: no calls edge, a references edge where a named
// function is taken as a value.
package funcvalues

// Hooks has func-typed fields.
type Hooks struct {
	OnStart func()
	OnStop  func() error
}

// HandlerFunc is a named func type with a method.
type HandlerFunc func(int) int

// Serve calls its receiver, a func value.
func (f HandlerFunc) Serve(x int) int { return f(x) }

func double(x int) int { return x * 2 }

func start() {}

func apply(fn func(int) int, x int) int { return fn(x) }

func pick() func(int) int { return double }

// Field calls func-typed fields.
func Field(h Hooks) error {
	h.OnStart()
	return h.OnStop()
}

// Variable calls a local holding a function.
func Variable() int {
	f := double
	return f(1)
}

// Param passes a function to a parameter.
func Param() int { return apply(double, 2) }

// Closure passes a closure that calls a function.
func Closure() int { return apply(func(x int) int { return double(x) }, 3) }

// Converted converts a function to a named func type and calls its method.
func Converted() int {
	hf := HandlerFunc(double)
	return hf.Serve(4)
}

// Stored stores a function in a field and calls the field.
func Stored() {
	h := Hooks{OnStart: start}
	h.OnStart()
}

// Declared declares a func variable.
func Declared() {
	var g func() = start
	g()
}

// Result calls the function another function returns.
func Result() int { return pick()(5) }
