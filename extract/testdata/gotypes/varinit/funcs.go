package varinit

type registry struct{ items []string }

func newRegistry() *registry { return &registry{} }

func (r *registry) lookup(k string) string { return k }

func count() int { return 1 }

func tick() int { return 2 }

func register(s string) bool {
	reg.items = append(reg.items, s)
	return true
}

// Get calls onTick, a package-level func value: no calls edge.
func Get() string {
	_ = onTick()
	return upper + found
}

// Local calls from a variable declared in a function: the function is the
// caller.
func Local() int {
	var n = count()
	return n + total
}
