package evidence

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/eventlog/boltlog"
	"github.com/cos-dev/cos/internal/testutil"
)

func bundleScript(t testing.TB, l *testutil.FakeLog) {
	record(t, l, "alpha", "", RolePlanner, `{"summary": "split", "steps": ["a", "b"]}`)
	record(t, l, "beta", "", RoleResearcher, `{"question": "why?", "findings": ["because"]}`)
	record(t, l, "alpha", "", RoleImplementer, `{"files": ["x.go"], "summary": "did it"}`)
	record(t, l, "alpha", KindBacktrack, "", `{"reason": "wrong layer", "from": "cache"}`)
	record(t, l, "alpha", "", RolePlanner, `{"summary": "re-plan", "steps": ["c"]}`)
	record(t, l, "beta", KindDiscovery, "", `{"summary": "found a dup", "uids": ["code:file:a.go"]}`)
	record(t, l, "alpha", KindDegradedFormula, "", `{"formula": "exhaustive", "reason": "no tester"}`)
	l.Append(t, "task:TASK-001", "task.created", []byte(`{"title":"not evidence"}`))
}

func TestBundles_Golden(t *testing.T) {
	l := new(testutil.FakeLog)
	bundleScript(t, l)
	p := NewBundles()
	for _, ev := range l.Events {
		if err := p.Apply(ev); err != nil {
			t.Fatal(err)
		}
	}
	var out []Bundle
	for _, s := range p.Sessions() {
		b, err := p.Get(s)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	got, _ := json.MarshalIndent(out, "", "  ")
	checkGolden(t, "bundles.golden.json", append(got, '\n'))
}

func TestBundles_Apply_Invalid(t *testing.T) {
	l := new(testutil.FakeLog)
	p := NewBundles()
	for _, tc := range []struct{ name, stream, data string }{
		{"not JSON", "evidence:s", `nope`},
		{"output not an object", "evidence:s", `{"role": "planner", "output": [1]}`},
		{"output without role", "evidence:s", `{"output": {"a": 1}}`},
		{"bad session in stream", "evidence:../x", `{"role": "planner", "output": {}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev := l.Append(t, tc.stream, TypeOutputRecorded, []byte(tc.data))
			if err := p.Apply(ev); err == nil {
				t.Error("Apply accepted an invalid record")
			}
		})
	}
	b, err := p.Get("s")
	if err != nil || b.Count() != 0 || b.Revision != 3 {
		t.Errorf("bundle %+v, %v: want empty at revision 3", b, err)
	}
	if _, err := p.Get("nobody"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get(nobody) = %v", err)
	}
}

func TestBundles_Snapshot_RoundTrip(t *testing.T) {
	l := new(testutil.FakeLog)
	bundleScript(t, l)
	for k := 0; k <= len(l.Events); k++ {
		whole, head := NewBundles(), NewBundles()
		for i, ev := range l.Events {
			_ = whole.Apply(ev)
			if i < k {
				_ = head.Apply(ev)
			}
		}
		snap, err := head.MarshalSnapshot()
		if err != nil {
			t.Fatal(err)
		}
		restored := NewBundles()
		if err := restored.UnmarshalSnapshot(snap); err != nil {
			t.Fatal(err)
		}
		if restored.StateHash() != head.StateHash() {
			t.Fatalf("k=%d: restored hash differs", k)
		}
		for _, ev := range l.Events[k:] {
			_ = restored.Apply(ev)
		}
		if restored.StateHash() != whole.StateHash() {
			t.Fatalf("k=%d: snapshot + tail differs from applying all", k)
		}
	}
	if err := NewBundles().UnmarshalSnapshot([]byte(`{"version": 1, "bundles": [{"session_id": ".."}]}`)); err == nil {
		t.Error("accepted a bundle with a bad session id")
	}
}

// TestBundles_SessionsNeverMix appends 2 sessions × 50 records from
// concurrent writers to the real log, then folds the log: each bundle holds
// exactly its own 50.
func TestBundles_SessionsNeverMix(t *testing.T) {
	ctx := context.Background()
	l := testutil.OpenLog(t, boltlog.Options{})
	reg := DefaultRegistry()
	sessions := []string{"sess-a", "sess-b"}
	const perSession = 50
	var wg sync.WaitGroup
	errs := make(chan error, len(sessions)*perSession)
	for _, s := range sessions {
		for i := range perSession {
			wg.Go(func() {
				out := fmt.Sprintf(`{"question": "%s #%d", "findings": ["%s"]}`, s, i, s)
				stream, p, err := reg.Prepare(s, "", RoleResearcher, json.RawMessage(out))
				if err == nil {
					_, err = l.AppendOne(ctx, eventlog.AppendRequest{Stream: stream, Events: []eventlog.Payload{p}})
				}
				if err != nil {
					errs <- err
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	p := NewBundles()
	if err := l.Read(ctx, 1, p.Apply); err != nil {
		t.Fatal(err)
	}
	for _, s := range sessions {
		b, err := p.Get(s)
		if err != nil {
			t.Fatal(err)
		}
		entries := b.Roles[RoleResearcher]
		if len(entries) != perSession || b.Count() != perSession || b.Revision != perSession {
			t.Errorf("%s: %d entries, count %d, revision %d; want %d", s, len(entries), b.Count(), b.Revision, perSession)
		}
		seen := map[string]bool{}
		for _, e := range entries {
			var out struct{ Question string }
			_ = json.Unmarshal(e.Output, &out)
			if !strings.HasPrefix(out.Question, s+" #") || seen[out.Question] {
				t.Errorf("%s holds %q", s, out.Question)
			}
			seen[out.Question] = true
		}
	}
}

func TestBundle_WithSlots(t *testing.T) {
	l := new(testutil.FakeLog)
	p := NewBundles()
	_ = p.Apply(record(t, l, "s", "", RolePlanner, `{"summary": "x", "steps": ["a"]}`))
	b, _ := p.Get("s")
	full := b.WithSlots(DefaultRegistry().RoleIDs())
	if len(full.Roles) != 5 || len(full.Roles[RolePlanner]) != 1 || full.Roles[RoleTester] == nil {
		t.Errorf("slots %v", full.Roles)
	}
	if again, _ := p.Get("s"); len(again.Roles) != 1 {
		t.Error("WithSlots changed the projection")
	}
}
