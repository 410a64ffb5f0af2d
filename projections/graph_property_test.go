package projections

import (
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/cos-dev/cos/eventlog"
)

// applyAll applies evs to g, failing tb on an error that is not an invalid
// event.
func applyAll(tb testing.TB, g *Graph, evs []eventlog.Event) {
	tb.Helper()
	for _, ev := range evs {
		if err := g.Apply(ev); err != nil && !errors.Is(err, ErrInvalidEvent) {
			tb.Fatalf("seq %d: %v", ev.Seq, err)
		}
	}
}

// TestGraph_Property_SnapshotAtEveryK checks, for random event sequences,
// that applying everything equals restoring a snapshot taken after k events
// and applying the rest, for every k, with equal state hashes and intact
// invariants.
func TestGraph_Property_SnapshotAtEveryK(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	const sequences, length = 5, 60
	for s := range sequences {
		gen := eventGen{r: rand.New(rand.NewPCG(seed, uint64(s)))}
		evs := gen.events(t, length)
		whole := NewGraph()
		applyAll(t, whole, evs)
		checkGraph(t, whole)
		want := whole.StateHash()

		prefix := NewGraph()
		for k := 0; k <= length; k++ {
			if k > 0 {
				applyAll(t, prefix, evs[k-1:k])
			}
			resumed := roundTrip(t, prefix)
			applyAll(t, resumed, evs[k:])
			checkGraph(t, resumed)
			if got := resumed.StateHash(); got != want {
				t.Fatalf("seed %d sequence %d: snapshot at %d + rest hashes %x, all at once %x", seed, s, k, got, want)
			}
		}
		again := NewGraph()
		applyAll(t, again, evs)
		if again.StateHash() != want {
			t.Fatalf("seed %d sequence %d: two replays disagree", seed, s)
		}
	}
}
