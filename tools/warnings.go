package tools

import (
	"fmt"

	"github.com/cos-dev/cos/envelope"
)

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

// committedAnswer is the answer of a call whose handler failed with err
// after some of its appends committed: ok, the receipts of what committed,
// and the failure as a warning. Handlers that can say more (the state read
// back, an export's path) answer themselves; this is the net under every
// write tool.
func committedAnswer(t *Tool, c *Call, err error) envelope.Envelope {
	recs := make([]writeReceipt, len(c.committed))
	var last uint64
	for i, r := range c.committed {
		recs[i] = receiptOf(r)
		last = max(last, r.LastSeq)
	}
	msg := ToEnvelopeError(err).Message
	warn := fmt.Sprintf("the write is committed (up to seq %d), but the answer failed after it: %s; "+
		"this answer holds only the receipts; do not resend without the same request_id", last, msg)
	return envelope.OK(map[string]any{"receipts": recs},
		envelope.Meta{Layer: t.Layer, LogSeq: c.V.Pos.Seq, Tool: envelope.ToolMeta{Warnings: []string{warn}}}, c.Budget)
}
