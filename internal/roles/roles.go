// Package roles names the built-in agent roles. Both the task projection
// (which roles a task calls for) and the evidence registry (which roles may
// record output) speak of them, and neither owns the other.
package roles

// The built-in role ids.
const (
	Planner     = "planner"
	Researcher  = "researcher"
	Implementer = "implementer"
	Tester      = "tester"
	Reviewer    = "reviewer"
)
