package projections

import (
	"bufio"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/eventlog/boltlog"
	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/internal/testutil"
)

// Environment of the child process of TestTailer_TwoProcesses.
const (
	childLogEnv  = "COS_PROJECTIONS_CHILD_LOG"
	childSeedEnv = "COS_PROJECTIONS_CHILD_SEED"
	childCount   = 150
)

func TestMain(m *testing.M) {
	if path := os.Getenv(childLogEnv); path != "" {
		os.Exit(runChild(path))
	}
	code := m.Run()
	benchCleanup()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// openLog opens (creating) the log of a state folder, closed and
// chain-verified at cleanup.
func openLog(tb testing.TB, stateDir string) *boltlog.Log {
	tb.Helper()
	return testutil.OpenLogAt(tb, filepath.Join(stateDir, "events.db"), boltlog.Options{})
}

// genPayloads returns n random event payloads.
func genPayloads(r *rand.Rand, n int) []eventlog.Payload {
	gen := eventGen{r: r}
	out := make([]eventlog.Payload, n)
	for i := range out {
		typ, p := gen.payload()
		raw, err := json.Marshal(p)
		if err != nil {
			panic(err) // plain structs and maps always marshal
		}
		out[i] = eventlog.Payload{Type: typ, Data: raw}
	}
	return out
}

// appendPayloads appends ps to stream "graph", perReq events per request.
func appendPayloads(tb testing.TB, l *boltlog.Log, ps []eventlog.Payload, perReq int) {
	tb.Helper()
	for len(ps) > 0 {
		n := min(perReq, len(ps))
		if _, err := l.AppendOne(context.Background(), eventlog.AppendRequest{Stream: graph.Stream, Events: ps[:n]}); err != nil {
			tb.Fatalf("append: %v", err)
		}
		ps = ps[n:]
	}
}

// readEvents returns every event of the log.
func readEvents(tb testing.TB, l *boltlog.Log) []eventlog.Event {
	tb.Helper()
	var evs []eventlog.Event
	if err := l.Read(context.Background(), 1, func(ev eventlog.Event) error {
		evs = append(evs, ev)
		return nil
	}); err != nil {
		tb.Fatal(err)
	}
	return evs
}

// replayed returns the graph built by applying evs directly.
func replayed(tb testing.TB, evs []eventlog.Event) *Graph {
	g := NewGraph()
	applyAll(tb, g, evs)
	return g
}

// startTailer starts a tailer over one new Graph, closed at cleanup.
func startTailer(tb testing.TB, src Source, opts TailerOptions) (*Tailer, *Graph) {
	tb.Helper()
	g := NewGraph()
	t, err := NewTailer(src, []Projection{g}, opts)
	if err != nil {
		tb.Fatal(err)
	}
	if err := t.Start(context.Background()); err != nil {
		tb.Fatalf("start tailer: %v", err)
	}
	tb.Cleanup(func() {
		t.Close()
		t.View(func(Position) { checkGraph(tb, g) })
	})
	return t, g
}

func graphHash(t *Tailer, g *Graph) (h [32]byte, pos Position) {
	t.View(func(p Position) { h, pos = g.StateHash(), p })
	return h, pos
}

func TestTailer_CatchUpAndFresh(t *testing.T) {
	dir := t.TempDir()
	l := openLog(t, dir)
	r := rand.New(rand.NewPCG(1, 2))
	appendPayloads(t, l, genPayloads(r, 300), 7)

	tl, g := startTailer(t, l, TailerOptions{})
	if got := tl.Position().Seq; got != 300 {
		t.Fatalf("after Start: position %d, want 300", got)
	}
	appendPayloads(t, l, genPayloads(r, 50), 1)
	if got := tl.Position().Seq; got != 300 {
		t.Fatalf("position moved without Fresh: %d", got)
	}
	if err := tl.Fresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	h, pos := graphHash(tl, g)
	if pos.Seq != 350 {
		t.Fatalf("after Fresh: position %d, want 350", pos.Seq)
	}
	evs := readEvents(t, l)
	if pos.Hash != evs[len(evs)-1].Hash {
		t.Errorf("position hash %s, want the last event's %s", pos.Hash, evs[len(evs)-1].Hash)
	}
	if want := replayed(t, evs).StateHash(); h != want {
		t.Errorf("tailer hash %x, direct replay %x", h, want)
	}
}

// Ring (a bus doorbell) applies events from the log only: a seq already
// applied or one the log does not have changes nothing; a seq past the
// position catches up with the whole log.
func TestTailer_Ring(t *testing.T) {
	dir := t.TempDir()
	l := openLog(t, dir)
	r := rand.New(rand.NewPCG(3, 4))
	appendPayloads(t, l, genPayloads(r, 10), 10)
	tl, g := startTailer(t, l, TailerOptions{})
	ctx := context.Background()
	ring := func(name string, seq, wantSeq uint64) {
		t.Helper()
		if err := tl.Ring(ctx, seq); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := tl.Position().Seq; got != wantSeq {
			t.Fatalf("%s: position %d, want %d", name, got, wantSeq)
		}
	}
	ring("older", 3, 10)
	ring("already applied", 10, 10)
	ring("past the log's head", 11, 10)
	ring("far past the log's head", 1<<40, 10)

	appendPayloads(t, l, genPayloads(r, 20), 1)
	ring("next catches up with the log", 11, 30)
	ring("duplicate", 11, 30)
	ring("within what was caught up", 25, 30)
	evs := readEvents(t, l)
	if h, pos := graphHash(tl, g); h != replayed(t, evs).StateHash() || pos.Hash != evs[len(evs)-1].Hash {
		t.Error("state after rings differs from a replay of the log")
	}
}

func TestTailer_OnApplied_SeesEveryEventOnce(t *testing.T) {
	dir := t.TempDir()
	l := openLog(t, dir)
	r := rand.New(rand.NewPCG(5, 6))
	appendPayloads(t, l, genPayloads(r, 40), 40)

	g := NewGraph()
	tl, err := NewTailer(l, []Projection{g}, TailerOptions{BatchSize: 16})
	if err != nil {
		t.Fatal(err)
	}
	defer tl.Close()
	var seen []uint64
	from := tl.OnApplied(func(evs []eventlog.Event) {
		tl.View(func(pos Position) {
			if pos.Seq < evs[len(evs)-1].Seq {
				t.Errorf("follower called before the batch was applied: position %d", pos.Seq)
			}
		})
		for _, ev := range evs {
			seen = append(seen, ev.Seq)
		}
	})
	if from.Seq != 0 {
		t.Fatalf("registered at %d, want 0", from.Seq)
	}
	if err := tl.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	appendPayloads(t, l, genPayloads(r, 5), 1)
	if err := tl.Fresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 45 {
		t.Fatalf("follower saw %d events, want 45", len(seen))
	}
	for i, s := range seen {
		if s != uint64(i+1) {
			t.Fatalf("follower saw seq %d at %d", s, i)
		}
	}
}

// countingProjection counts the events offered to a projection.
type countingProjection struct {
	Projection
	applied int
}

func (c *countingProjection) Apply(ev eventlog.Event) error {
	c.applied++
	return c.Projection.Apply(ev)
}

func TestTailer_SnapshotThenTail(t *testing.T) {
	dir := t.TempDir()
	l := openLog(t, dir)
	r := rand.New(rand.NewPCG(7, 8))
	appendPayloads(t, l, genPayloads(r, 200), 50)
	a, _ := startTailer(t, l, TailerOptions{StateDir: dir, NoBackgroundSnapshots: true})
	if pos, err := a.Snapshot(context.Background()); err != nil || pos.Seq != 200 {
		t.Fatalf("snapshot: %v at %d", err, pos.Seq)
	}
	appendPayloads(t, l, genPayloads(r, 30), 3)

	g := NewGraph()
	counted := &countingProjection{Projection: g}
	b, err := NewTailer(l, []Projection{counted}, TailerOptions{StateDir: dir, NoBackgroundSnapshots: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if counted.applied != 30 {
		t.Errorf("applied %d events after the snapshot, want the 30-event tail", counted.applied)
	}
	if h, _ := graphHash(b, g); h != replayed(t, readEvents(t, l)).StateHash() {
		t.Error("snapshot + tail differs from a full replay")
	}
}

func TestTailer_BackgroundSnapshots(t *testing.T) {
	dir := t.TempDir()
	l := openLog(t, dir)
	r := rand.New(rand.NewPCG(9, 10))
	g := NewGraph()
	tl, err := NewTailer(l, []Projection{g}, TailerOptions{StateDir: dir, SnapshotEvery: 25, SnapshotKeep: 2})
	if err != nil {
		t.Fatal(err)
	}
	wrote := make(chan uint64, 16)
	tl.afterSnapshot = func(pos Position) { wrote <- pos.Seq }
	if err := tl.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer tl.Close()
	for round := uint64(1); round <= 4; round++ {
		appendPayloads(t, l, genPayloads(r, 25), 25)
		if err := tl.Fresh(context.Background()); err != nil {
			t.Fatal(err)
		}
		if got := <-wrote; got != 25*round {
			t.Fatalf("round %d: background snapshot at %d, want %d", round, got, 25*round)
		}
	}
	files, err := listSnapshots(filepath.Join(dir, SnapshotDirName))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 || files[0].seq != 100 || files[1].seq != 75 {
		t.Fatalf("snapshot files %v, want seqs 100 and 75", files)
	}
	for _, f := range files {
		if _, err := readSnapshot(f.path); err != nil {
			t.Errorf("%s: %v", f.path, err)
		}
	}
}

func TestTailer_BadSnapshotSkipped(t *testing.T) {
	cases := []struct {
		name    string
		corrupt func(t *testing.T, path string, foreign []byte)
	}{
		{"flipped byte", func(t *testing.T, path string, _ []byte) {
			b, _ := os.ReadFile(path)
			b[len(b)/2] ^= 0x40
			os.WriteFile(path, b, 0o644)
		}},
		{"truncated", func(t *testing.T, path string, _ []byte) {
			b, _ := os.ReadFile(path)
			os.WriteFile(path, b[:len(b)-40], 0o644)
		}},
		{"empty", func(t *testing.T, path string, _ []byte) { os.WriteFile(path, nil, 0o644) }},
		{"from another log", func(t *testing.T, path string, foreign []byte) { os.WriteFile(path, foreign, 0o644) }},
		{"missing section", func(t *testing.T, path string, _ []byte) {
			s, err := readSnapshot(path)
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(path, encodeSnapshot(s.pos, []string{"tasks"}, [][]byte{{1}}), 0o644)
		}},
		{"valid checksum, garbage section", func(t *testing.T, path string, _ []byte) {
			s, err := readSnapshot(path)
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(path, encodeSnapshot(s.pos, []string{"graph"}, [][]byte{[]byte("\x0bcos-graph/1\xff\xff")}), 0o644)
		}},
	}
	// A snapshot of another log at seq 120, for "from another log".
	otherDir := t.TempDir()
	ol := openLog(t, otherDir)
	appendPayloads(t, ol, genPayloads(rand.New(rand.NewPCG(99, 99)), 120), 60)
	other, _ := startTailer(t, ol, TailerOptions{StateDir: otherDir, NoBackgroundSnapshots: true})
	if _, err := other.Snapshot(context.Background()); err != nil {
		t.Fatal(err)
	}
	foreign, err := os.ReadFile(filepath.Join(otherDir, SnapshotDirName, snapshotName(120)))
	if err != nil {
		t.Fatal(err)
	}

	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			l := openLog(t, dir)
			r := rand.New(rand.NewPCG(11, 12))
			appendPayloads(t, l, genPayloads(r, 60), 60)
			a, _ := startTailer(t, l, TailerOptions{StateDir: dir, NoBackgroundSnapshots: true})
			a.Snapshot(context.Background())
			appendPayloads(t, l, genPayloads(r, 60), 60)
			a.Fresh(context.Background())
			a.Snapshot(context.Background())
			appendPayloads(t, l, genPayloads(r, 10), 10)
			newest := filepath.Join(dir, SnapshotDirName, snapshotName(120))
			c.corrupt(t, newest, foreign)

			var logs testutil.SyncBuffer
			g := NewGraph()
			counted := &countingProjection{Projection: g}
			b, err := NewTailer(l, []Projection{counted}, TailerOptions{
				StateDir: dir, NoBackgroundSnapshots: true,
				Logger: slog.New(slog.NewTextHandler(&logs, nil)),
			})
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			if err := b.Start(context.Background()); err != nil {
				t.Fatalf("Start with a bad snapshot: %v", err)
			}
			if !strings.Contains(logs.String(), "skipping snapshot") || !strings.Contains(logs.String(), snapshotName(120)) {
				t.Errorf("no log line about the skipped snapshot:\n%s", logs.String())
			}
			if counted.applied != 70 {
				t.Errorf("applied %d events, want 70 (restored from the seq-60 snapshot)", counted.applied)
			}
			if h, _ := graphHash(b, g); h != replayed(t, readEvents(t, l)).StateHash() {
				t.Error("state after skipping a bad snapshot differs from a full replay")
			}
		})
	}
}

func TestOpenAt(t *testing.T) {
	dir := t.TempDir()
	l := openLog(t, dir)
	r := rand.New(rand.NewPCG(13, 14))
	appendPayloads(t, l, genPayloads(r, 100), 10)
	live, _ := startTailer(t, l, TailerOptions{StateDir: dir, NoBackgroundSnapshots: true})
	live.Snapshot(context.Background())
	appendPayloads(t, l, genPayloads(r, 100), 10)
	live.Fresh(context.Background())
	live.Snapshot(context.Background())
	evs := readEvents(t, l)

	for _, c := range []struct {
		name  string
		until Until
	}{
		{"before the first snapshot", Until{Seq: 42}},
		{"at a snapshot", Until{Seq: 100}},
		{"between snapshots", Until{Seq: 150}},
		{"past the head", Until{Seq: 1000}},
		{"no bound", Until{}},
		{"by time", Until{Time: evs[76].Time}},
		{"by seq and time", Until{Seq: 120, Time: evs[150].Time}},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := NewGraph()
			v, err := OpenAt(context.Background(), l, []Projection{g}, c.until, TailerOptions{StateDir: dir})
			if err != nil {
				t.Fatal(err)
			}
			defer v.Close()
			var want uint64
			for _, ev := range evs {
				if !c.until.excludes(ev) {
					want = ev.Seq
				}
			}
			h, pos := graphHash(v, g)
			if pos.Seq != want {
				t.Fatalf("view at %d, want %d", pos.Seq, want)
			}
			if wantHash := replayed(t, evs[:want]).StateHash(); h != wantHash {
				t.Errorf("view hash %x, replay of %d events %x", h, want, wantHash)
			}
			appendPayloads(t, l, genPayloads(r, 1), 1)
			v.Fresh(context.Background())
			if got := v.Position().Seq; got != want {
				t.Errorf("a point-in-time view moved to %d", got)
			}
			evs = readEvents(t, l)
		})
	}
}

// TestTailer_TwoProcesses runs a second tailer in a child OS process (this
// test binary re-executed): both append to one log concurrently while
// tailing, then both reach the same position and state hash.
func TestTailer_TwoProcesses(t *testing.T) {
	dir := t.TempDir()
	l := openLog(t, dir)
	tl, g := startTailer(t, l, TailerOptions{})

	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childLogEnv+"="+filepath.Join(dir, "events.db"), childSeedEnv+"=21")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer stdin.Close()
	lines := bufio.NewScanner(stdout)

	r := rand.New(rand.NewPCG(22, 23))
	for _, p := range genPayloads(r, childCount) {
		appendPayloads(t, l, []eventlog.Payload{p}, 1)
		if err := tl.Fresh(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if !lines.Scan() || lines.Text() != "appended" {
		t.Fatalf("child: %q %v", lines.Text(), lines.Err())
	}
	if err := tl.Fresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	io.WriteString(stdin, "go\n")
	if !lines.Scan() {
		t.Fatalf("child gave no hash: %v", lines.Err())
	}
	var childHash string
	var childSeq uint64
	if _, err := fmt.Sscanf(lines.Text(), "hash %s seq %d", &childHash, &childSeq); err != nil {
		t.Fatalf("child said %q: %v", lines.Text(), err)
	}
	h, pos := graphHash(tl, g)
	if pos.Seq != 2*childCount || childSeq != pos.Seq {
		t.Fatalf("positions: parent %d, child %d, want %d", pos.Seq, childSeq, 2*childCount)
	}
	if childHash != hex.EncodeToString(h[:]) {
		t.Errorf("child hash %s, parent %x", childHash, h)
	}
}

// runChild is the child side of TestTailer_TwoProcesses.
func runChild(path string) int {
	fail := func(err error) int {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 1
	}
	seed, _ := strconv.ParseUint(os.Getenv(childSeedEnv), 10, 64)
	ctx := context.Background()
	l, err := boltlog.Open(ctx, path, boltlog.Options{})
	if err != nil {
		return fail(err)
	}
	defer l.Close(ctx)
	g := NewGraph()
	tl, err := NewTailer(l, []Projection{g}, TailerOptions{})
	if err != nil {
		return fail(err)
	}
	defer tl.Close()
	if err := tl.Start(ctx); err != nil {
		return fail(err)
	}
	for _, p := range genPayloads(rand.New(rand.NewPCG(seed, seed)), childCount) {
		if _, err := l.AppendOne(ctx, eventlog.AppendRequest{Stream: graph.Stream, Events: []eventlog.Payload{p}}); err != nil {
			return fail(err)
		}
		if err := tl.Fresh(ctx); err != nil {
			return fail(err)
		}
	}
	fmt.Println("appended")
	in := bufio.NewScanner(os.Stdin)
	if !in.Scan() {
		return fail(fmt.Errorf("no go from the parent"))
	}
	// Every event of both processes was committed before the parent said
	// go, so one Fresh must see them all.
	if err := tl.Fresh(ctx); err != nil {
		return fail(err)
	}
	h, pos := graphHash(tl, g)
	fmt.Printf("hash %x seq %d\n", h, pos.Seq)
	return 0
}

// TestTailer_PositionInsideViewWithAWriterQueued: Position called inside
// View while a catch-up waits for the write lock returns instead of
// deadlocking the process (a health answer reads the position inside its
// view; before, Position took a second read lock, which waits behind the
// queued writer, which waits for the first).
func TestTailer_PositionInsideViewWithAWriterQueued(t *testing.T) {
	dir := t.TempDir()
	l := openLog(t, dir)
	r := rand.New(rand.NewPCG(7, 8))
	appendPayloads(t, l, genPayloads(r, 10), 1)
	tl, err := NewTailer(l, []Projection{NewGraph()}, TailerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer tl.Close()
	if err := tl.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	appendPayloads(t, l, genPayloads(r, 5), 1)

	returned := make(chan Position, 1)
	caughtUp := make(chan error, 1)
	go tl.View(func(Position) {
		go func() {
			_, err := tl.CatchUp(context.Background()) // queues for the write lock
			caughtUp <- err
		}()
		time.Sleep(100 * time.Millisecond) // let it queue
		returned <- tl.Position()
	})
	select {
	case pos := <-returned:
		if pos.Seq != 10 {
			t.Errorf("Position inside the view: seq %d, want 10", pos.Seq)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Position inside View deadlocked against a queued catch-up")
	}
	if err := <-caughtUp; err != nil {
		t.Fatal(err)
	}
	if got := tl.Position().Seq; got != 15 {
		t.Fatalf("after the catch-up: seq %d, want 15", got)
	}
}
