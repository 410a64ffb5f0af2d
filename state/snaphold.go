package state

// HoldSnapshots stops the background snapshot loop from writing a snapshot
// until release is called (release is idempotent; holds nest). An index
// run holds it while it appends: its projections follow the log as it
// goes, and a snapshot of a half-appended run every SnapshotEvery events
// would marshal the whole graph again and again for nothing, since the run
// takes one snapshot at its end. A kick that arrives while held is dropped;
// the next one after release, or the interval tick, writes the snapshot.
func (s *State) HoldSnapshots() (release func()) {
	s.snapHolds.Add(1)
	done := false
	return func() {
		if !done {
			done = true
			s.snapHolds.Add(-1)
		}
	}
}
