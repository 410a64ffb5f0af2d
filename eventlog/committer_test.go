package eventlog_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/cos-dev/cos/eventlog"
)

// call is one queued Append call of the committer tests.
type call struct {
	*eventlog.Handoff
	name        string
	reqs, bytes int
}

// TestCommitter: while a commit runs, the calls queued meanwhile go into
// the next batches in queue order — bounded by MaxRequests and MaxBytes
// when Weigh is set (at least one call each), all of them otherwise — a
// withdrawn call is skipped, Close refuses new calls at once but commits
// the queued ones (returning ctx's error while it would have to wait), and
// Stopped runs before a Close returns nil.
func TestCommitter(t *testing.T) {
	for _, c := range []struct {
		name  string
		weigh bool
		want  [][]string
	}{
		{name: "Bounded", weigh: true, want: [][]string{{"first"}, {"a", "b"}, {"c", "d"}, {"e"}}},
		{name: "Unbounded", weigh: false, want: [][]string{{"first"}, {"a", "b", "c", "d", "e"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var (
				started = make(chan struct{})
				release = make(chan struct{})
				batches [][]string // written by the committer only; read after Close
				stopped bool
			)
			o := eventlog.CommitterOptions[*call]{
				Commit: func(batch []*call) {
					if batches == nil {
						close(started)
						<-release
					}
					var names []string
					for _, p := range batch {
						names = append(names, p.name)
						p.Results[0].Receipt.FirstSeq = uint64(len(batches) + 1)
						p.Settle()
					}
					batches = append(batches, names)
				},
				MaxRequests: 4,
				MaxBytes:    100,
				Stopped:     func() { stopped = true },
			}
			if c.weigh {
				o.Weigh = func(p *call) (int, int) { return p.reqs, p.bytes }
			}
			cm := eventlog.NewCommitter(o)
			queue := func(name string, reqs, bytes int) *call {
				p := &call{Handoff: eventlog.NewHandoff(1), name: name, reqs: reqs, bytes: bytes}
				p.Hand()
				if err := cm.Queue(p); err != nil {
					t.Fatalf("Queue(%s) = %v", name, err)
				}
				return p
			}
			first := queue("first", 1, 1)
			<-started
			a := queue("a", 2, 1)
			w := queue("withdrawn", 1, 1)
			ended, cancel := context.WithCancel(context.Background())
			cancel()
			if res, err := w.Wait(ended); res != nil || !errors.Is(err, context.Canceled) {
				t.Fatalf("withdrawn call: %v, %v; want context.Canceled", res, err)
			}
			rest := []*call{first, a, queue("b", 2, 1), queue("c", 1, 1), queue("d", 1, 60), queue("e", 1, 50)}
			if err := cm.Close(ended); !errors.Is(err, context.Canceled) {
				t.Fatalf("Close while a commit runs, ctx ended = %v; want context.Canceled", err)
			}
			if err := cm.Queue(&call{Handoff: eventlog.NewHandoff(1)}); !errors.Is(err, eventlog.ErrClosed) {
				t.Fatalf("Queue after Close = %v; want ErrClosed", err)
			}
			close(release)
			if err := cm.Close(context.Background()); err != nil {
				t.Fatalf("Close = %v", err)
			}
			if !stopped {
				t.Error("Close returned before Stopped ran")
			}
			if !slices.EqualFunc(batches, c.want, slices.Equal) {
				t.Errorf("batches = %v; want %v", batches, c.want)
			}
			for _, p := range rest {
				res, err := p.Wait(context.Background())
				if err != nil || len(res) != 1 || res[0].Receipt.FirstSeq == 0 {
					t.Errorf("call %s: %v, %v; want its committed result", p.name, res, err)
				}
			}
			if err := cm.Close(ended); err != nil {
				t.Errorf("Close again after the committer stopped = %v; want nil", err)
			}
		})
	}
}
