package tools

import "fmt"

// A write tool's answer after its append committed is never a failure: a
// failure would invite a retry, and a retry without request_id writes
// again. What goes wrong after the commit — the read back of the new state,
// an export — becomes a warning in meta.warnings (envelope.ToolMeta.Warnings)
// of an ok answer that still carries the receipt.

// committedReadBackWarning is the warning of a write whose events committed
// at seq but whose read back failed with err.
func committedReadBackWarning(seq uint64, err error) string {
	return fmt.Sprintf("the write is committed at seq %d, but reading the state back failed (%v); "+
		"this answer holds only the receipt; read the state again to see it", seq, err)
}
