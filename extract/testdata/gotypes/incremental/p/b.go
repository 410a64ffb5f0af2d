package p

// H stays in b.go.
func H() int { return 3 }
