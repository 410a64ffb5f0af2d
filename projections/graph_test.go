package projections

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/internal/testutil"
)

// testEvent builds a committed-looking event with payload data (a value to
// marshal, or json.RawMessage).
func testEvent(tb testing.TB, seq uint64, typ string, data any) eventlog.Event {
	tb.Helper()
	raw, ok := data.(json.RawMessage)
	if !ok {
		var err error
		if raw, err = json.Marshal(data); err != nil {
			tb.Fatalf("marshal %s payload: %v", typ, err)
		}
	}
	stream := graph.Stream
	if !strings.HasPrefix(typ, "graph.") {
		stream = "system"
	}
	return eventlog.Event{
		Seq: seq, ID: fmt.Sprintf("ev-%06d", seq), Stream: stream, Revision: seq, Type: typ,
		Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(seq) * time.Second),
		Data: raw,
	}
}

// readJSONL reads a golden input: one {"type","data"} object per line.
func readJSONL(tb testing.TB, path string) []eventlog.Event {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var evs []eventlog.Event
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var p eventlog.Payload
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			tb.Fatalf("%s line %d: %v", path, len(evs)+1, err)
		}
		evs = append(evs, testEvent(tb, uint64(len(evs)+1), p.Type, p.Data))
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return evs
}

// checkGraph fails tb when g's invariants do not hold.
func checkGraph(tb testing.TB, g *Graph) {
	tb.Helper()
	if err := g.check(); err != nil {
		tb.Fatalf("graph invariant: %v", err)
	}
}

// compareGolden compares got with the golden file, or rewrites it under
// -update.
func compareGolden(tb testing.TB, path string, got []byte) {
	tb.Helper()
	testutil.Golden(tb, path, got)
}

// TestGraph_Golden applies each testdata/graph/<case>.jsonl and compares the
// outcome of every event, the rendered graph and its state hash with
// <case>.golden. It also checks that a failed event changes nothing and that
// a snapshot round trip keeps the state.
func TestGraph_Golden(t *testing.T) {
	inputs, err := filepath.Glob("testdata/graph/*.jsonl")
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no golden inputs: %v", err)
	}
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".jsonl")
		t.Run(name, func(t *testing.T) {
			g := NewGraph()
			var out bytes.Buffer
			for _, ev := range readJSONL(t, in) {
				before := g.StateHash()
				if err := g.Apply(ev); err != nil {
					fmt.Fprintf(&out, "seq %d %s: error: %v\n", ev.Seq, ev.Type, err)
					if !errors.Is(err, ErrInvalidEvent) {
						t.Errorf("seq %d: error %v does not wrap ErrInvalidEvent", ev.Seq, err)
					}
					if after := g.StateHash(); after != before {
						t.Errorf("seq %d: failed event changed the state hash", ev.Seq)
					}
				} else {
					c := g.Counts()
					fmt.Fprintf(&out, "seq %d %s: ok (nodes %d, edges %d, extractions %d)\n", ev.Seq, ev.Type, c.Nodes, c.Edges, c.Extractions)
				}
				checkGraph(t, g)
			}
			dump, err := json.MarshalIndent(g.Dump(), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			out.Write(dump)
			fmt.Fprintf(&out, "\nstate_hash: %x\n", g.StateHash())
			compareGolden(t, strings.TrimSuffix(in, ".jsonl")+".golden", out.Bytes())

			restored := roundTrip(t, g)
			if got, want := restored.StateHash(), g.StateHash(); got != want {
				t.Errorf("snapshot round trip: hash %x, want %x", got, want)
			}
			redump, _ := json.MarshalIndent(restored.Dump(), "", "  ")
			if !bytes.Equal(redump, dump) {
				t.Errorf("snapshot round trip changed the dump:\n%s", redump)
			}
		})
	}
}

// roundTrip returns a new graph restored from g's snapshot.
func roundTrip(tb testing.TB, g *Graph) *Graph {
	tb.Helper()
	snap, err := g.MarshalSnapshot()
	if err != nil {
		tb.Fatal(err)
	}
	r := NewGraph()
	if err := r.UnmarshalSnapshot(snap); err != nil {
		tb.Fatalf("unmarshal snapshot: %v", err)
	}
	checkGraph(tb, r)
	return r
}
