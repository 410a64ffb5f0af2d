package calc

// Internal exports internal to the external test package.
func Internal() int { return internal() }
