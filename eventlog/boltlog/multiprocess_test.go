package boltlog

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cos-dev/cos/eventlog"
)

// ack is one acknowledged append as a child reports it on stdout.
type ack struct {
	Proc   int    `json:"proc"`
	Stream string `json:"stream"`
	Seq    uint64 `json:"seq"`
	Rev    uint64 `json:"rev"`
	Hash   string `json:"hash"`
	Key    string `json:"key"`
}

// runChild runs one role of a child process (see TestMain).
func runChild(role string, args []string) error {
	ctx := context.Background()
	l, err := Open(ctx, args[0], Options{})
	if err != nil {
		return err
	}
	defer l.Close(ctx)
	out := bufio.NewWriter(os.Stdout)
	var outMu sync.Mutex
	emit := func(a ack) {
		b, _ := json.Marshal(a)
		outMu.Lock()
		out.Write(append(b, '\n'))
		out.Flush()
		outMu.Unlock()
	}
	switch role {
	case "append": // path, proc, goroutines, appends per goroutine
		proc, _ := strconv.Atoi(args[1])
		gs, _ := strconv.Atoi(args[2])
		n, _ := strconv.Atoi(args[3])
		var wg sync.WaitGroup
		errc := make(chan error, gs)
		for g := 0; g < gs; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < n; i++ {
					key := fmt.Sprintf("p%d-g%d-i%d", proc, g, i)
					data := json.RawMessage(`{"key":"` + key + `"}`)
					if i%2 == 0 {
						stream := fmt.Sprintf("own-p%d-g%d", proc, g)
						rec, err := l.AppendOne(ctx, eventlog.AppendRequest{Stream: stream, Events: []eventlog.Payload{{Type: "test.appended", Data: data}}})
						if err != nil {
							errc <- err
							return
						}
						emit(ack{proc, stream, rec.FirstSeq, rec.Revision, rec.Hashes[0], key})
						continue
					}
					stream := fmt.Sprintf("shared-%d", i%4)
					for {
						rev, _, err := l.StreamRevision(ctx, stream)
						if err != nil {
							errc <- err
							return
						}
						rec, err := l.AppendOne(ctx, eventlog.AppendRequest{Stream: stream, Expect: eventlog.AtRevision(rev), Events: []eventlog.Payload{{Type: "test.cas", Data: data}}})
						if errors.Is(err, eventlog.ErrStaleRevision) {
							continue
						}
						if err != nil {
							errc <- err
							return
						}
						emit(ack{proc, stream, rec.FirstSeq, rec.Revision, rec.Hashes[0], key})
						break
					}
				}
			}()
		}
		wg.Wait()
		close(errc)
		return <-errc
	case "bench": // path, proc, goroutines, appends per goroutine; own streams only
		proc, _ := strconv.Atoi(args[1])
		gs, _ := strconv.Atoi(args[2])
		n, _ := strconv.Atoi(args[3])
		var wg sync.WaitGroup
		errc := make(chan error, gs)
		for g := 0; g < gs; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				stream := fmt.Sprintf("bench-p%d-g%d", proc, g)
				for i := 0; i < n; i++ {
					if _, err := l.AppendOne(ctx, eventlog.AppendRequest{Stream: stream, Events: []eventlog.Payload{{Type: "bench.appended", Data: json.RawMessage(`{"n":1}`)}}}); err != nil {
						errc <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errc)
		return <-errc
	case "race": // path, rounds, folder of go-files
		rounds, _ := strconv.Atoi(args[1])
		for r := 0; r < rounds; r++ {
			outMu.Lock()
			fmt.Fprintf(out, "ready %d\n", r)
			out.Flush()
			outMu.Unlock()
			gate := filepath.Join(args[2], fmt.Sprintf("go-%d", r))
			for {
				if _, err := os.Stat(gate); err == nil {
					break
				}
				time.Sleep(200 * time.Microsecond)
			}
			_, err := l.AppendOne(ctx, eventlog.AppendRequest{Stream: fmt.Sprintf("race-%d", r), Expect: eventlog.NoStream(), Events: []eventlog.Payload{{Type: "test.raced", Data: json.RawMessage(`{}`)}}})
			result := "ok"
			switch {
			case errors.Is(err, eventlog.ErrStaleRevision):
				result = "stale"
			case err != nil:
				return err
			}
			outMu.Lock()
			fmt.Fprintf(out, "result %d %s\n", r, result)
			out.Flush()
			outMu.Unlock()
		}
		return nil
	case "loop": // path: append forever from 4 goroutines, acknowledging each
		var wg sync.WaitGroup
		for g := 0; g < 4; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; ; i++ {
					key := fmt.Sprintf("pid%d-g%d-%d", os.Getpid(), g, i)
					rec, err := l.AppendOne(ctx, eventlog.AppendRequest{Stream: "loop", Events: []eventlog.Payload{{Type: "test.looped", Data: json.RawMessage(`{"key":"` + key + `"}`)}}})
					if err != nil {
						fmt.Fprintln(os.Stderr, err)
						return
					}
					emit(ack{Stream: "loop", Seq: rec.FirstSeq, Hash: rec.Hashes[0], Key: key})
				}
			}()
		}
		wg.Wait()
		return nil
	}
	return fmt.Errorf("unknown role %q", role)
}

// createLog creates the log at path and closes it again.
func createLog(tb testing.TB, path string) {
	tb.Helper()
	l, err := Open(context.Background(), path, Options{})
	if err != nil {
		tb.Fatal(err)
	}
	if err := l.Close(context.Background()); err != nil {
		tb.Fatal(err)
	}
}

func childCmd(t *testing.T, role string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "COS_EVENTLOG_CHILD="+role, "COS_EVENTLOG_ARGS="+strings.Join(args, ","))
	cmd.Stderr = os.Stderr
	return cmd
}

func decodeAcks(t *testing.T, out []byte) []ack {
	t.Helper()
	var acks []ack
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if line == "" {
			continue
		}
		var a ack
		if err := json.Unmarshal([]byte(line), &a); err != nil {
			continue // a line cut by SIGKILL
		}
		acks = append(acks, a)
	}
	return acks
}

// checkAcks asserts that the log holds exactly the acknowledged events
// (when exact) or at least them, each once, gapless, with a verifying chain.
func checkAcks(t *testing.T, path string, acks []ack, exact bool) {
	t.Helper()
	ctx := context.Background()
	l, err := Open(ctx, path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close(ctx)
	n, err := l.Verify(ctx)
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	evs := readAll(t, l)
	if uint64(len(evs)) != n {
		t.Fatalf("read %d events, verified %d", len(evs), n)
	}
	bySeq := map[uint64]eventlog.Event{}
	keys := map[string]int{}
	for i, ev := range evs {
		if ev.Seq != uint64(i+1) {
			t.Fatalf("gap: event %d has seq %d", i, ev.Seq)
		}
		bySeq[ev.Seq] = ev
		var d struct{ Key string }
		if json.Unmarshal(ev.Data, &d) == nil && d.Key != "" {
			keys[d.Key]++
		}
	}
	for k, c := range keys {
		if c > 1 {
			t.Errorf("key %s written %d times", k, c)
		}
	}
	for _, a := range acks {
		ev, ok := bySeq[a.Seq]
		if !ok || ev.Hash != a.Hash || ev.Stream != a.Stream || !strings.Contains(string(ev.Data), a.Key) {
			t.Fatalf("acknowledged %+v not in the log (found %+v)", a, ev)
		}
	}
	if exact && len(evs) != len(acks) {
		t.Fatalf("log holds %d events, %d acknowledged", len(evs), len(acks))
	}
}

func TestLog_MultiProcess_AppendLosesAndDuplicatesNothing(t *testing.T) {
	const procs, goroutines, appends = 4, 8, 250
	path := filepath.Join(t.TempDir(), "events.db")
	createLog(t, path)
	var wg sync.WaitGroup
	outs := make([][]byte, procs)
	errs := make([]error, procs)
	for p := 0; p < procs; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[p], errs[p] = childCmd(t, "append", path, strconv.Itoa(p), strconv.Itoa(goroutines), strconv.Itoa(appends)).Output()
		}()
	}
	wg.Wait()
	var acks []ack
	for p := range outs {
		if errs[p] != nil {
			t.Fatalf("child %d: %v", p, errs[p])
		}
		acks = append(acks, decodeAcks(t, outs[p])...)
	}
	if len(acks) != procs*goroutines*appends {
		t.Fatalf("%d acknowledgements, want %d", len(acks), procs*goroutines*appends)
	}
	checkAcks(t, path, acks, true)
	// Revisions of each shared stream are exactly 1..n.
	revs := map[string]map[uint64]bool{}
	for _, a := range acks {
		if revs[a.Stream] == nil {
			revs[a.Stream] = map[uint64]bool{}
		}
		if revs[a.Stream][a.Rev] {
			t.Fatalf("stream %s revision %d acknowledged twice", a.Stream, a.Rev)
		}
		revs[a.Stream][a.Rev] = true
	}
	for s, rs := range revs {
		for r := uint64(1); r <= uint64(len(rs)); r++ {
			if !rs[r] {
				t.Fatalf("stream %s lacks revision %d", s, r)
			}
		}
	}
}

func TestLog_MultiProcess_CreateRaceHasOneWinner(t *testing.T) {
	const procs, rounds = 8, 50
	dir := t.TempDir()
	path := filepath.Join(dir, "events.db")
	createLog(t, path)
	type child struct {
		cmd   *exec.Cmd
		lines *bufio.Scanner
	}
	children := make([]child, procs)
	for p := range children {
		cmd := childCmd(t, "race", path, strconv.Itoa(rounds), dir)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		children[p] = child{cmd, bufio.NewScanner(stdout)}
	}
	next := func(c child, prefix string) string {
		if !c.lines.Scan() {
			t.Fatalf("child ended early: %v", c.lines.Err())
		}
		line := c.lines.Text()
		if !strings.HasPrefix(line, prefix) {
			t.Fatalf("child said %q, want %q…", line, prefix)
		}
		return line
	}
	for r := 0; r < rounds; r++ {
		for _, c := range children {
			next(c, fmt.Sprintf("ready %d", r))
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("go-%d", r)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		winners := 0
		for _, c := range children {
			if strings.HasSuffix(next(c, fmt.Sprintf("result %d ", r)), " ok") {
				winners++
			}
		}
		if winners != 1 {
			t.Fatalf("round %d: %d winners, want exactly 1", r, winners)
		}
	}
	for _, c := range children {
		if err := c.cmd.Wait(); err != nil {
			t.Fatal(err)
		}
	}
	checkAcks(t, path, nil, false)
}

func TestLog_MultiProcess_KillNineLosesNothingAcknowledged(t *testing.T) {
	const kills = 20
	path := filepath.Join(t.TempDir(), "events.db")
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	var acks []ack
	for k := 0; k < kills; k++ {
		cmd := childCmd(t, "loop", path)
		var out strings.Builder
		cmd.Stdout = &syncWriter{w: &out}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(30+rng.IntN(250)) * time.Millisecond)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
		acks = append(acks, decodeAcks(t, []byte(cmd.Stdout.(*syncWriter).String()))...)
		// The next process must be able to open after every kill.
		l, err := Open(context.Background(), path, Options{})
		if err != nil {
			t.Fatalf("open after kill %d: %v", k, err)
		}
		if err := l.Close(context.Background()); err != nil {
			t.Fatalf("close after kill %d: %v", k, err)
		}
	}
	if len(acks) == 0 {
		t.Fatal("no child acknowledged anything before being killed")
	}
	t.Logf("%d acknowledged appends across %d kills", len(acks), kills)
	checkAcks(t, path, acks, false)
}

type syncWriter struct {
	mu sync.Mutex
	w  *strings.Builder
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

func (s *syncWriter) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.String()
}
