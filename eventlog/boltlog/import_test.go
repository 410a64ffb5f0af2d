package boltlog

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cos-dev/cos/eventlog"
)

// TestImport_Verbatim copies a log with several streams, an allocated
// stream and a request id into a new file: every event is the same, field
// for field, the chain verifies, appends go on from it (the stream
// revisions, the allocation counter) and a second import refuses the file.
func TestImport_Verbatim(t *testing.T) {
	ctx := context.Background()
	src, _ := openTestLog(t, Options{})
	for i := range 10 {
		mustAppend(t, src, req("graph", "graph.file_extracted", dataN(i)))
	}
	r := req("", "task.created", `{"title":"x"}`)
	r.StreamPrefix = "task:TASK-"
	r.RequestID = "req-1"
	first := mustAppend(t, src, r)
	mustAppend(t, src, req(first.Stream, "task.updated", `{"s":1}`))
	want := readAll(t, src)
	srcHead, err := src.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}

	dest := filepath.Join(t.TempDir(), "copy.db")
	var calls []uint64
	head, err := Import(ctx, dest, src, func(n uint64) { calls = append(calls, n) })
	if err != nil {
		t.Fatalf("Import: %v", err)
	}
	if head != srcHead {
		t.Fatalf("Import head = %+v, want the source's %+v", head, srcHead)
	}
	if len(calls) == 0 || calls[len(calls)-1] != srcHead.Seq {
		t.Fatalf("progress calls = %v, want the last to be %d", calls, srcHead.Seq)
	}
	if _, err := os.Stat(dest + ".tmp"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the temporary file is left: %v", err)
	}
	dst, err := Open(ctx, dest, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close(ctx)
	if n, err := dst.Verify(ctx); err != nil || n != srcHead.Seq {
		t.Fatalf("Verify = %d, %v; want %d", n, err, srcHead.Seq)
	}
	if got := readAll(t, dst); !reflect.DeepEqual(got, want) {
		t.Fatalf("imported events differ:\n got %+v\nwant %+v", got, want)
	}
	if h, _ := dst.Head(ctx); h != srcHead {
		t.Fatalf("Head of the copy = %+v, want %+v", h, srcHead)
	}
	// The copy goes on where the source stood: revisions and allocation.
	next := req(first.Stream, "task.updated", `{"s":2}`)
	next.Expect = eventlog.AtRevision(2)
	if rec := mustAppend(t, dst, next); rec.Revision != 3 || rec.FirstSeq != srcHead.Seq+1 {
		t.Fatalf("append after import = %+v; want revision 3 at seq %d", rec, srcHead.Seq+1)
	}
	alloc := req("", "task.created", `{"title":"y"}`)
	alloc.StreamPrefix = "task:TASK-"
	if rec := mustAppend(t, dst, alloc); rec.Stream != "task:TASK-002" {
		t.Fatalf("allocated stream after import = %s, want task:TASK-002", rec.Stream)
	}
	if _, err := Import(ctx, dest, src, nil); !errors.Is(err, ErrDestExists) {
		t.Fatalf("Import onto an existing file = %v, want ErrDestExists", err)
	}
}

// brokenSource hands out a log's events with one changed on the way.
type brokenSource struct {
	l    *Log
	seq  uint64
	edit func(*eventlog.Event)
}

func (b brokenSource) Receipts(ctx context.Context, fn func(eventlog.StoredReceipt) error) error {
	return b.l.Receipts(ctx, fn)
}

func (b brokenSource) Read(ctx context.Context, from uint64, fn func(eventlog.Event) error) error {
	return b.l.Read(ctx, from, func(ev eventlog.Event) error {
		if ev.Seq == b.seq {
			b.edit(&ev)
		}
		return fn(ev)
	})
}

// TestImport_RefusesABrokenChain: an event whose data changed (hash no
// longer recomputes), or that skips a seq, ends the import with an
// IntegrityError naming it, and leaves no file behind.
func TestImport_RefusesABrokenChain(t *testing.T) {
	ctx := context.Background()
	src, _ := openTestLog(t, Options{})
	for i := range 5 {
		mustAppend(t, src, req("graph", "graph.file_extracted", dataN(i)))
	}
	for name, edit := range map[string]func(*eventlog.Event){
		"data":     func(ev *eventlog.Event) { ev.Data = []byte(`{"n":99}`) },
		"seq":      func(ev *eventlog.Event) { ev.Seq++ },
		"revision": func(ev *eventlog.Event) { ev.Revision = 9; ev.Hash = eventlog.EventHash(ev) },
	} {
		t.Run(name, func(t *testing.T) {
			dest := filepath.Join(t.TempDir(), "copy.db")
			_, err := Import(ctx, dest, brokenSource{l: src, seq: 3, edit: edit}, nil)
			var ie *eventlog.IntegrityError
			if !errors.As(err, &ie) || ie.Seq != 3 {
				t.Fatalf("Import = %v, want an IntegrityError at seq 3", err)
			}
			entries, _ := os.ReadDir(filepath.Dir(dest))
			if len(entries) != 0 {
				var names []string
				for _, e := range entries {
					names = append(names, e.Name())
				}
				t.Fatalf("files left after a refused import: %s", strings.Join(names, ", "))
			}
		})
	}
}

// forgedReceipts lists l's receipts with edit applied to each.
type forgedReceipts struct {
	*Log
	edit func(*eventlog.StoredReceipt)
}

func (f forgedReceipts) Receipts(ctx context.Context, fn func(eventlog.StoredReceipt) error) error {
	return f.Log.Receipts(ctx, func(r eventlog.StoredReceipt) error { f.edit(&r); return fn(r) })
}

// TestImport_CopiesReceipts: the receipts of the source are copied with
// their intents — a retry on the copy replays, another intent under the
// same id is E_REQUEST_REUSE — and a receipt that does not match the
// events it points at, or points past them, ends the import with an
// IntegrityError and leaves no file.
func TestImport_CopiesReceipts(t *testing.T) {
	ctx := context.Background()
	src, _ := openTestLog(t, Options{})
	r1 := req("doc:a", "doc.created", dataN(1))
	r1.RequestID = "r-1"
	first := mustAppend(t, src, r1)
	mustAppend(t, src, req("doc:b", "doc.created", dataN(2)))
	dest := filepath.Join(t.TempDir(), "copy.db")
	if _, err := Import(ctx, dest, src, nil); err != nil {
		t.Fatal(err)
	}
	cp, err := Open(ctx, dest, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer cp.Close(ctx)
	if again := mustAppend(t, cp, r1); !again.Replayed || again.FirstSeq != first.FirstSeq {
		t.Fatalf("retry on the copy: %+v; want a replay of seq %d", again, first.FirstSeq)
	}
	other := req("doc:a", "doc.created", dataN(9))
	other.RequestID = "r-1"
	if _, err := cp.AppendOne(ctx, other); !errors.Is(err, eventlog.ErrRequestReuse) {
		t.Fatalf("another intent under r-1 on the copy: %v; want ErrRequestReuse", err)
	}
	for name, edit := range map[string]func(*eventlog.StoredReceipt){
		"hash": func(r *eventlog.StoredReceipt) { r.Receipt.Hashes[0] = strings.Repeat("0", 64) },
		"past": func(r *eventlog.StoredReceipt) { r.Receipt.LastSeq = 9 },
		"seq":  func(r *eventlog.StoredReceipt) { r.Receipt.FirstSeq, r.Receipt.LastSeq = 2, 2 },
	} {
		t.Run(name, func(t *testing.T) {
			dest := filepath.Join(t.TempDir(), "copy.db")
			_, err := Import(ctx, dest, forgedReceipts{src, edit}, nil)
			var ie *eventlog.IntegrityError
			if !errors.As(err, &ie) {
				t.Fatalf("Import = %v, want an IntegrityError", err)
			}
			if entries, _ := os.ReadDir(filepath.Dir(dest)); len(entries) != 0 {
				t.Fatalf("%d files left after a refused import", len(entries))
			}
		})
	}
}
