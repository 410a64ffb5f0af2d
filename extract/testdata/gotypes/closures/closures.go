// Package closures calls from function literals: the calls belong to the
// declared function that encloses them.
package closures

// Job is run from closures.
type Job struct{ name string }

// Run has a pointer receiver.
func (j *Job) Run() {}

// Retry calls Run from a closure inside a method.
func (j *Job) Retry() { func() { j.Run() }() }

func helper() int { return 1 }

func other() int { return 2 }

// Goroutines calls from a go statement's closure.
func Goroutines(jobs []*Job) {
	for _, j := range jobs {
		go func() { j.Run() }()
	}
}

// Deferred calls from a deferred closure.
func Deferred() (n int) {
	defer func() { n = helper() }()
	return 0
}

// Nested calls from a closure inside a returned closure.
func Nested() func() int {
	return func() int {
		inner := func() int { return other() }
		return inner()
	}
}

// Assigned calls from a closure stored in a local.
func Assigned() int {
	f := func() int { return helper() }
	return f()
}
