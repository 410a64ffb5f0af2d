package eventlog

import (
	"context"
	"sync/atomic"
)

// Handoff is one Append call handed by its caller to a log's group
// committer (boltlog and natslog queue concurrent calls and commit them
// together). Results holds one Result per request of the call: the
// validation errors its caller set before Hand, and the committer's
// outcome for every other request. The committer owns Results from Take
// to Settle. A caller whose context ends before Take withdraws the call
// (none of it is committed); one whose context ends after it answers
// ErrCommitUnknown for every request it handed over, from a copy, never
// reading what the committer is writing.
type Handoff struct {
	Results []Result
	// validation is Results at Hand.
	validation []Result
	// state moves queued → taken (by the committer) or queued →
	// withdrawn (by the caller), exactly once.
	state atomic.Int32
	done  chan struct{}
}

const (
	handoffQueued int32 = iota
	handoffTaken
	handoffWithdrawn
)

// NewHandoff returns the Handoff of a call of n requests.
func NewHandoff(n int) *Handoff {
	return &Handoff{Results: make([]Result, n), done: make(chan struct{})}
}

// Hand ends validation: the requests whose Result has no error are the
// ones the committer decides. Call it once, before the call is queued.
func (h *Handoff) Hand() {
	h.validation = append([]Result(nil), h.Results...)
}

// Take claims the call for the committer; false when its caller withdrew
// it first (the committer must then skip it).
func (h *Handoff) Take() bool {
	return h.state.CompareAndSwap(handoffQueued, handoffTaken)
}

// Settle releases the caller once the committer has written Results.
func (h *Handoff) Settle() {
	close(h.done)
}

// Wait waits for Settle and returns Results, or, when ctx ends first,
// ctx's error if the committer had not taken the call (it is withdrawn:
// nothing of it will be committed), else the validation results with
// every handed-over request's Err a *CommitUnknownError.
func (h *Handoff) Wait(ctx context.Context) ([]Result, error) {
	select {
	case <-h.done:
		return h.Results, nil
	case <-ctx.Done():
		if h.state.CompareAndSwap(handoffQueued, handoffWithdrawn) {
			return nil, ctx.Err()
		}
		out := append([]Result(nil), h.validation...)
		for i := range out {
			if out[i].Err == nil {
				out[i] = Result{Err: &CommitUnknownError{Err: ctx.Err()}}
			}
		}
		return out, nil
	}
}
