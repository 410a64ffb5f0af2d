// Package rangevars calls methods on range variables of every kind of
// range clause.
package rangevars

// Task is ranged over.
type Task struct{ id int }

// Run has a value receiver.
func (t Task) Run() {}

// Stop has a pointer receiver.
func (t *Task) Stop() {}

// Runner is satisfied by Task.
type Runner interface {
	Run()
}

// Queue returns tasks from a method.
type Queue struct{ tasks []Task }

// NewQueue returns an empty queue.
func NewQueue() *Queue { return &Queue{} }

// Items returns the tasks.
func (q *Queue) Items() []Task { return q.tasks }

// Slice ranges over a slice of values.
func Slice(tasks []Task) {
	for _, t := range tasks {
		t.Run()
	}
}

// SliceIndex indexes a slice of pointers with the range key.
func SliceIndex(ptrs []*Task) {
	for i := range ptrs {
		ptrs[i].Stop()
	}
}

// MapValues ranges over map values.
func MapValues(byName map[string]*Task) {
	for _, t := range byName {
		t.Stop()
	}
}

// MapKeys ranges over map keys.
func MapKeys(byTask map[Task]bool) {
	for t := range byTask {
		t.Run()
	}
}

// Channel ranges over a channel.
func Channel(ch chan Task) {
	for t := range ch {
		t.Run()
	}
}

// Array ranges over an array and calls a pointer method on the variable.
func Array(arr [2]Task) {
	for _, t := range arr {
		t.Stop()
	}
}

// Interfaces ranges over interface values.
func Interfaces(rs []Runner) {
	for _, r := range rs {
		r.Run()
	}
}

// MethodResult ranges over what a method returns.
func MethodResult() {
	for _, t := range NewQueue().Items() {
		t.Run()
	}
}

// Ints ranges over an integer and calls nothing.
func Ints() int {
	n := 0
	for i := range 3 {
		n += i
	}
	return n
}
