package boltlog

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/cos-dev/cos/eventlog"
	bolt "go.etcd.io/bbolt"
)

// flipInFile flips one byte of every occurrence of marker in the file (bbolt
// is copy-on-write, so freed pages may hold stale copies of the live one).
// The log is marked corrupted.
func flipInFile(t *testing.T, path, marker string) {
	t.Helper()
	markCorrupted(path)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(raw, []byte(marker))
	if i < 0 {
		t.Fatalf("marker %q not in %s", marker, path)
	}
	for ; i >= 0; i = bytes.Index(raw, []byte(marker)) {
		raw[i] ^= 0x20
	}
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
}

// rewriteRecord replaces the stored record of seq with ev re-encoded (valid
// checksum, but fields that no longer match the chain). The log is marked
// corrupted.
func rewriteRecord(t *testing.T, path string, seq uint64, edit func(ev *eventlog.Event)) {
	t.Helper()
	markCorrupted(path)
	db, err := bolt.Open(path, 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketEvents)
		ev, err := DecodeRecord(b.Get(seqKey(seq)))
		if err != nil {
			return err
		}
		edit(&ev)
		v, err := encodeRecord(&ev)
		if err != nil {
			return err
		}
		return b.Put(seqKey(seq), v)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func fiveEvents(t *testing.T) (*Log, string) {
	l, path := openTestLog(t, Options{})
	for i := 0; i < 5; i++ {
		mustAppend(t, l, req("s", "a.b", `{"marker":"MARK`+string(rune('A'+i))+`"}`))
	}
	return l, path
}

func TestLog_Verify_FlippedByteOnDisk(t *testing.T) {
	l, path := fiveEvents(t)
	flipInFile(t, path, "MARKC")
	n, err := l.Verify(context.Background())
	var ie *eventlog.IntegrityError
	if !errors.As(err, &ie) || ie.Seq != 3 || n != 2 {
		t.Fatalf("Verify = %d, %v; want an integrity error at seq 3 after 2 good events", n, err)
	}
	// A broken middle does not stop appends (the tail verifies).
	mustAppend(t, l, req("s", "a.b", `{}`))
}

func TestLog_Verify_TamperedFieldBreaksChain(t *testing.T) {
	l, path := fiveEvents(t)
	rewriteRecord(t, path, 2, func(ev *eventlog.Event) { ev.Data = json.RawMessage(`{"marker":"forged"}`) })
	_, err := l.Verify(context.Background())
	var ie *eventlog.IntegrityError
	if !errors.As(err, &ie) || ie.Seq != 2 || !strings.Contains(ie.Reason, "recomputed") {
		t.Fatalf("Verify = %v; want a hash mismatch at seq 2", err)
	}
	// Reads stop before the forged event, as before a bad checksum: the
	// forged data is never handed out.
	var seen []eventlog.Event
	err = l.Read(context.Background(), 0, func(ev eventlog.Event) error { seen = append(seen, ev); return nil })
	if len(seen) != 1 || !errors.As(err, &ie) || ie.Seq != 2 {
		t.Fatalf("Read after tampering saw %d events then %v; want 1 then an integrity error at seq 2", len(seen), err)
	}
	// A read from above the forged event links to it: the forged hash
	// recomputed does not reach the next event's prev_hash.
	rewriteRecord(t, path, 2, func(ev *eventlog.Event) { ev.Hash = eventlog.EventHash(ev) })
	seen = nil
	err = l.Read(context.Background(), 2, func(ev eventlog.Event) error { seen = append(seen, ev); return nil })
	if len(seen) != 1 || !errors.As(err, &ie) || ie.Seq != 3 {
		t.Fatalf("Read from seq 2 of a re-hashed forgery saw %d events then %v; want 1 then an integrity error at seq 3", len(seen), err)
	}
}

func TestLog_Append_RefusedOnBrokenTail(t *testing.T) {
	l, path := fiveEvents(t)
	rewriteRecord(t, path, 5, func(ev *eventlog.Event) { ev.Type = "a.forged" })
	_, err := l.AppendOne(context.Background(), req("s", "a.b", `{}`))
	var ie *eventlog.IntegrityError
	if !errors.As(err, &ie) || ie.Seq != 5 {
		t.Fatalf("append on a broken tail = %v, want ErrIntegrity at seq 5", err)
	}
	var seen int
	if err := l.Read(context.Background(), 0, func(eventlog.Event) error { seen++; return nil }); seen != 4 || !errors.Is(err, eventlog.ErrIntegrity) {
		t.Fatalf("Read saw %d then %v; want the 4 good events then ErrIntegrity", seen, err)
	}
	if _, err := l.Verify(context.Background()); !errors.Is(err, eventlog.ErrIntegrity) {
		t.Fatalf("Verify = %v, want ErrIntegrity", err)
	}
}

func TestLog_Append_RefusedOnUndecodableTail(t *testing.T) {
	l, path := fiveEvents(t)
	flipInFile(t, path, "MARKE")
	if _, err := l.AppendOne(context.Background(), req("s", "a.b", `{}`)); !errors.Is(err, eventlog.ErrIntegrity) {
		t.Fatalf("append = %v, want ErrIntegrity", err)
	}
	var seen int
	err := l.Read(context.Background(), 0, func(eventlog.Event) error { seen++; return nil })
	if seen != 4 || !errors.Is(err, eventlog.ErrIntegrity) {
		t.Fatalf("Read saw %d then %v; want 4 good events then ErrIntegrity", seen, err)
	}
}

func TestLog_Verify_MissingEvent(t *testing.T) {
	l, path := fiveEvents(t)
	markCorrupted(path)
	db, err := bolt.Open(path, 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketEvents).Delete(seqKey(3)) }); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = l.Verify(context.Background())
	var ie *eventlog.IntegrityError
	if !errors.As(err, &ie) || ie.Seq != 3 {
		t.Fatalf("Verify = %v, want an integrity error at seq 3", err)
	}
}

func TestOpen_ErrFormat(t *testing.T) {
	t.Run("foreign bolt file", func(t *testing.T) {
		path := t.TempDir() + "/events.db"
		db, err := bolt.Open(path, 0o644, nil)
		if err != nil {
			t.Fatal(err)
		}
		_ = db.Update(func(tx *bolt.Tx) error { _, err := tx.CreateBucket([]byte("other")); return err })
		db.Close()
		if _, err := Open(context.Background(), path, Options{}); !errors.Is(err, eventlog.ErrFormat) {
			t.Fatalf("Open = %v, want ErrFormat", err)
		}
	})
	t.Run("newer format", func(t *testing.T) {
		l, path := openTestLog(t, Options{})
		if err := l.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		markCorrupted(path) // a format this build does not read
		db, err := bolt.Open(path, 0o644, nil)
		if err != nil {
			t.Fatal(err)
		}
		_ = db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketMeta).Put(keyFormat, []byte{FormatVersion + 1}) })
		db.Close()
		if _, err := Open(context.Background(), path, Options{}); !errors.Is(err, eventlog.ErrFormat) {
			t.Fatalf("Open = %v, want ErrFormat", err)
		}
		if _, err := Open(context.Background(), path, Options{ReadOnly: true}); !errors.Is(err, eventlog.ErrFormat) {
			t.Fatalf("Open read-only = %v, want ErrFormat", err)
		}
	})
}

func TestOpen_StorageError(t *testing.T) {
	_, err := Open(context.Background(), t.TempDir()+"/no/such/dir/events.db", Options{})
	var se *eventlog.StorageError
	if !errors.As(err, &se) || se.DatabasePath() == "" {
		t.Fatalf("Open in a missing folder = %v, want a *StorageError naming the file", err)
	}
}

func TestOptions_Validate(t *testing.T) {
	for _, o := range []Options{{MaxEventBytes: -1}, {ReceiptMaxCount: -1}, {ReceiptMaxAge: -1}, {ReadChunk: -1}} {
		if o.Validate() == nil {
			t.Errorf("Validate(%+v) = nil", o)
		}
	}
}

func TestHead_TornHeadFileFallsBackToDatabase(t *testing.T) {
	l, path := fiveEvents(t)
	if err := os.WriteFile(path+".head", []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ro, err := Open(ctx, path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close(ctx)
	h, err := ro.Head(ctx)
	if err != nil || h.Seq != 5 {
		t.Fatalf("Head with a torn head file = %+v %v, want seq 5", h, err)
	}
	mustAppend(t, l, req("s", "a.b", `{}`)) // rewrites the head file
	if h, _ := ro.Head(ctx); h.Seq != 6 {
		t.Fatalf("Head after the next commit = %d, want 6", h.Seq)
	}
}

func FuzzDecodeRecord(f *testing.F) {
	ev := eventlog.Event{Seq: 1, ID: "01J0000000000000000000000", Stream: "s", Revision: 1, Type: "a.b", Data: json.RawMessage(`{"x":[1,"é"]}`), PrevHash: eventlog.ZeroHash}
	ev.Hash = eventlog.EventHash(&ev)
	good, _ := encodeRecord(&ev)
	f.Add(good)
	f.Add([]byte{})
	f.Add([]byte{1, 0, 0, 0, 0})
	f.Add(append([]byte{1, 0, 0, 0, 0}, []byte(`{"seq":1}`)...))
	f.Fuzz(func(t *testing.T, b []byte) {
		ev, err := DecodeRecord(b)
		if err != nil {
			return
		}
		// Whatever decodes re-encodes to a record that decodes to the same event.
		again, err := encodeRecord(&ev)
		if err != nil {
			t.Fatalf("re-encode: %v", err)
		}
		ev2, err := DecodeRecord(again)
		if err != nil || eventlog.EventHash(&ev2) != eventlog.EventHash(&ev) {
			t.Fatalf("round trip changed the event: %v", err)
		}
	})
}

// A writer that dies between its commit and the head file's rewrite leaves
// the hint behind; Head confirms it against the database within
// headRecheck.
func TestHead_StaleHintIsCorrected(t *testing.T) {
	l, path := fiveEvents(t)
	f, err := os.OpenFile(path+".head", os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := writeHeadFile(f, eventlog.Head{Seq: 3, Hash: eventlog.ZeroHash}); err != nil { // what a crash leaves
		t.Fatal(err)
	}
	f.Close()
	ctx := context.Background()
	ro, err := Open(ctx, path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close(ctx)
	if h, err := ro.Head(ctx); err != nil || h.Seq != 5 {
		t.Fatalf("first Head of a process = %+v %v, want the database's 5", h, err)
	}
	_ = l
}
