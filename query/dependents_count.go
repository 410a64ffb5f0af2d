package query

// Count returns how many dependents the walk found (its roots not
// counted): the size of a footprint's reach.
func (d *Dependents) Count() int {
	if d == nil {
		return 0
	}
	return len(d.byUID)
}
