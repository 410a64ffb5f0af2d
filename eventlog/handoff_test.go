package eventlog_test

import (
	"context"
	"errors"
	"testing"

	"github.com/cos-dev/cos/eventlog"
)

// TestHandoff: a call withdrawn before the committer takes it is skipped
// by the committer and answers ctx's error; one taken and then abandoned
// answers ErrCommitUnknown for the requests it handed over and keeps its
// validation errors; one settled answers the committer's results.
func TestHandoff(t *testing.T) {
	bad := &eventlog.InvalidEventError{Field: "type", Reason: "empty"}
	newCall := func() *eventlog.Handoff {
		h := eventlog.NewHandoff(3)
		h.Results[1].Err = bad
		h.Hand()
		return h
	}
	ended, cancel := context.WithCancel(context.Background())
	cancel()

	h := newCall()
	if res, err := h.Wait(ended); res != nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("withdrawn: %v, %v; want no results and context.Canceled", res, err)
	}
	if h.Take() {
		t.Fatal("the committer took a withdrawn call")
	}

	h = newCall()
	if !h.Take() {
		t.Fatal("the committer could not take a queued call")
	}
	h.Results[0] = eventlog.Result{Receipt: eventlog.Receipt{FirstSeq: 9}} // the committer writing
	res, err := h.Wait(ended)
	if err != nil || len(res) != 3 {
		t.Fatalf("abandoned: %v, %v", res, err)
	}
	for i, want := range []error{eventlog.ErrCommitUnknown, bad, eventlog.ErrCommitUnknown} {
		if !errors.Is(res[i].Err, want) {
			t.Errorf("abandoned: request %d: %v, want %v", i, res[i].Err, want)
		}
	}

	h = newCall()
	h.Take()
	h.Results[0] = eventlog.Result{Receipt: eventlog.Receipt{FirstSeq: 9}}
	h.Results[2] = eventlog.Result{Receipt: eventlog.Receipt{FirstSeq: 10}}
	h.Settle()
	res, err = h.Wait(context.Background())
	if err != nil || res[0].Receipt.FirstSeq != 9 || res[1].Err != bad || res[2].Receipt.FirstSeq != 10 {
		t.Fatalf("settled: %+v, %v", res, err)
	}
}
