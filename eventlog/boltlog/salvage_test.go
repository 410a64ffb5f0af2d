package boltlog

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cos-dev/cos/eventlog"
)

// markers returns the "marker" of every event's data in the log at path,
// after checking that its chain verifies.
func markers(t *testing.T, path string) []string {
	t.Helper()
	ctx := context.Background()
	l, err := Open(ctx, path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close(ctx)
	if _, err := l.Verify(ctx); err != nil {
		t.Fatalf("the written log does not verify: %v", err)
	}
	var out []string
	for _, ev := range readAll(t, l) {
		var d struct{ Marker string }
		_ = json.Unmarshal(ev.Data, &d)
		out = append(out, d.Marker)
	}
	return out
}

func TestLog_Salvage_FlippedByteInTheMiddle(t *testing.T) {
	l, path := fiveEvents(t)
	flipInFile(t, path, "MARKC")
	dest := filepath.Join(t.TempDir(), "salvaged.db")
	rep, err := l.Salvage(context.Background(), dest)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Lost) != 1 || rep.Lost[0].Seq != 3 || rep.Kept != 4 || rep.Examined != 5 || rep.Head.Seq != 4 {
		t.Fatalf("report = %+v; want seq 3 lost, 4 kept of 5", rep)
	}
	if got, want := markers(t, dest), []string{"MARKA", "MARKB", "MARKD", "MARKE"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("salvaged events = %v, want %v", got, want)
	}
	// The source is untouched: still damaged at seq 3.
	var ie *eventlog.IntegrityError
	if _, err := l.Verify(context.Background()); !errors.As(err, &ie) || ie.Seq != 3 {
		t.Fatalf("source Verify = %v; want it still broken at 3", err)
	}
	if _, err := l.Salvage(context.Background(), dest); !errors.Is(err, ErrDestExists) {
		t.Fatalf("second Salvage to the same file = %v, want ErrDestExists", err)
	}
}

func TestLog_Salvage_RecomputedHashCaughtBySuccessor(t *testing.T) {
	l, path := fiveEvents(t)
	rewriteRecord(t, path, 2, func(ev *eventlog.Event) {
		ev.Data = json.RawMessage(`{"marker":"forged"}`)
		ev.Hash = eventlog.EventHash(ev)
	})
	dest := filepath.Join(t.TempDir(), "salvaged.db")
	rep, err := l.Salvage(context.Background(), dest)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Lost) != 1 || rep.Lost[0].Seq != 2 {
		t.Fatalf("lost = %+v; want exactly seq 2", rep.Lost)
	}
	if got, want := markers(t, dest), []string{"MARKA", "MARKC", "MARKD", "MARKE"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("salvaged events = %v, want %v", got, want)
	}
}

func TestLog_Salvage_HealthyLogLosesNothing(t *testing.T) {
	l, _ := fiveEvents(t)
	dest := filepath.Join(t.TempDir(), "salvaged.db")
	rep, err := l.Salvage(context.Background(), dest)
	if err != nil || len(rep.Lost) != 0 || rep.Kept != 5 {
		t.Fatalf("Salvage = %+v, %v; want 5 kept, none lost", rep, err)
	}
	h, _ := l.Head(context.Background())
	if rep.Head != h {
		t.Fatalf("salvaged head %+v differs from the source's %+v", rep.Head, h)
	}
}

// TestLog_Backup_WhileWriting copies the log while another goroutine keeps
// appending: the copy verifies, holds a prefix of the log, and every
// acknowledged append is in the source.
func TestLog_Backup_WhileWriting(t *testing.T) {
	l, _ := openTestLog(t, Options{})
	ctx := context.Background()
	for i := range 50 {
		mustAppend(t, l, req("s", "a.b", dataN(i)))
	}
	var (
		stop  atomic.Bool
		wg    sync.WaitGroup
		acked atomic.Uint64
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; !stop.Load(); i++ {
			rec, err := l.AppendOne(ctx, req("s", "a.b", dataN(1000+i)))
			if err != nil {
				t.Errorf("append during backup: %v", err)
				return
			}
			acked.Store(rec.LastSeq)
		}
	}()
	dir := t.TempDir()
	var heads []uint64
	for i := range 5 {
		dest := filepath.Join(dir, "backup"+string(rune('0'+i))+".db")
		h, err := l.Backup(ctx, dest)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Open(ctx, dest, Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		n, err := b.Verify(ctx)
		_ = b.Close(ctx)
		if err != nil || n != h.Seq || n < 50 {
			t.Fatalf("backup %d: Verify = %d, %v; Backup said head %d", i, n, err, h.Seq)
		}
		heads = append(heads, h.Seq)
	}
	stop.Store(true)
	wg.Wait()
	if _, err := l.Backup(ctx, filepath.Join(dir, "backup0.db")); !errors.Is(err, ErrDestExists) {
		t.Fatalf("Backup over an existing file = %v, want ErrDestExists", err)
	}
	t.Logf("backup heads %v while appending; last acknowledged seq %d", heads, acked.Load())
}
