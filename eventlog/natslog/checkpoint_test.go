package natslog_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/eventlog/natslog"
)

// ckReq is request i: one event on stream doc:<i%3> under request id
// <run>-<i>.
func ckReq(run string, i int) eventlog.AppendRequest {
	return eventlog.AppendRequest{Stream: fmt.Sprintf("doc:%d", i%3), RequestID: fmt.Sprintf("%s-%d", run, i),
		Events: []eventlog.Payload{{Type: "doc.updated", Data: []byte(fmt.Sprintf(`{"n":%d}`, i))}}}
}

func appendN(t *testing.T, l *natslog.Log, run string, from, to int) []eventlog.Receipt {
	t.Helper()
	var out []eventlog.Receipt
	for i := from; i < to; i++ {
		rec, err := eventlog.AppendOne(t.Context(), l, ckReq(run, i))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, rec)
	}
	return out
}

// TestCheckpoint_OpenReadsPastIt: a handle closed with a checkpoint file
// leaves its model there; the next Open starts from it and reads only what
// was committed after, and its model is the whole log's: retries of
// requests from before and after the checkpoint replay, revisions and
// allocation counters continue.
func TestCheckpoint_OpenReadsPastIt(t *testing.T) {
	_, url := startJetStream(t)
	name := newStreamName()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "log-checkpoint.bin")
	a := openLog(t, url, name, natslog.Options{Checkpoint: path})
	before := appendN(t, a, "a", 0, 20)
	alloc, err := eventlog.AppendOne(ctx, a, eventlog.AppendRequest{StreamPrefix: "task:TASK-", RequestID: "alloc",
		Events: []eventlog.Payload{{Type: "task.created", Data: []byte(`{}`)}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("no checkpoint after Close: %v", err)
	}
	// Another machine (no checkpoint) writes after it.
	b := openLog(t, url, name, natslog.Options{})
	after := appendN(t, b, "b", 20, 30)

	c := openLog(t, url, name, natslog.Options{Checkpoint: path})
	if got := natslog.CheckpointSeq(c); got != alloc.LastSeq {
		t.Fatalf("the reopened handle started from seq %d, want the checkpoint's %d", got, alloc.LastSeq)
	}
	for i, want := range append(before, after...) {
		run := "a"
		if i >= 20 {
			run = "b"
		}
		got, err := eventlog.AppendOne(ctx, c, ckReq(run, i))
		if err != nil || !got.Replayed || got.FirstSeq != want.FirstSeq {
			t.Fatalf("retry of %s-%d: %+v, %v; want a replay of seq %d", run, i, got, err, want.FirstSeq)
		}
	}
	// Revisions and counters continue from the whole log.
	rev, err := eventlog.AppendOne(ctx, c, eventlog.AppendRequest{Stream: "doc:0", Expect: eventlog.AtRevision(10),
		Events: []eventlog.Payload{{Type: "doc.updated", Data: []byte(`{}`)}}})
	if err != nil || rev.Revision != 11 {
		t.Fatalf("append at revision 10 of doc:0: %+v, %v", rev, err)
	}
	next, err := eventlog.AppendOne(ctx, c, eventlog.AppendRequest{StreamPrefix: "task:TASK-", Events: []eventlog.Payload{{Type: "task.created", Data: []byte(`{}`)}}})
	if err != nil || next.Stream != "task:TASK-002" {
		t.Fatalf("next allocation: %+v, %v; want task:TASK-002", next, err)
	}
}

// TestCheckpoint_ThatDoesNotMatchIsRebuilt: a checkpoint whose event at
// its seq is not the stream's (another stream of the same name), one past
// the stream's end, and a torn file are not used: Open reads the whole
// stream, and the model is the stream's — a request id only the old
// checkpoint knew writes, one of the stream replays.
func TestCheckpoint_ThatDoesNotMatchIsRebuilt(t *testing.T) {
	ctx := t.Context()
	_, url1 := startJetStream(t)
	_, url2 := startJetStream(t)
	name := newStreamName()
	for _, c := range []struct {
		name   string
		events int // on the second server's stream
		tear   bool
	}{{"other log, same name", 12, false}, {"stream ends before it", 3, false}, {"torn file", 12, true}} {
		t.Run(c.name, func(t *testing.T) {
			name := name + fmt.Sprint(len(c.name))
			path := filepath.Join(t.TempDir(), "log-checkpoint.bin")
			a := openLog(t, url1, name, natslog.Options{Checkpoint: path})
			appendN(t, a, "old", 0, 10)
			if err := a.Close(ctx); err != nil {
				t.Fatal(err)
			}
			if c.tear {
				raw, _ := os.ReadFile(path)
				if err := os.WriteFile(path, raw[:len(raw)/2], 0o644); err != nil {
					t.Fatal(err)
				}
			}
			w := openLog(t, url2, name, natslog.Options{})
			theirs := appendN(t, w, "new", 100, 100+c.events)
			l := openLog(t, url2, name, natslog.Options{Checkpoint: path})
			if got := natslog.CheckpointSeq(l); got != 0 {
				t.Fatalf("a checkpoint of another log was used (seq %d)", got)
			}
			got, err := eventlog.AppendOne(ctx, l, ckReq("new", 100))
			if err != nil || !got.Replayed || got.FirstSeq != theirs[0].FirstSeq {
				t.Fatalf("retry of the stream's own request: %+v, %v; want a replay", got, err)
			}
			got, err = eventlog.AppendOne(ctx, l, ckReq("old", 0))
			if err != nil || got.Replayed {
				t.Fatalf("a request id only the old checkpoint knew: %+v, %v; want it written", got, err)
			}
		})
	}
}

// TestCheckpoint_VerifyHashesFromIt: VerifyHashes of a handle that started
// from a checkpoint checks the links read since (a message that is not the
// next link is an IntegrityError naming it) and counts every event; one
// that started from seq 1 walks the whole stream (Verify).
func TestCheckpoint_VerifyHashesFromIt(t *testing.T) {
	_, url := startJetStream(t)
	name := newStreamName()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "log-checkpoint.bin")
	a := openLog(t, url, name, natslog.Options{Checkpoint: path})
	appendN(t, a, "a", 0, 5)
	if n, err := a.VerifyHashes(ctx); err != nil || n != 5 {
		t.Fatalf("VerifyHashes without a checkpoint = %d, %v; want 5", n, err)
	}
	if err := a.Close(ctx); err != nil {
		t.Fatal(err)
	}
	b := openLog(t, url, name, natslog.Options{})
	appendN(t, b, "b", 5, 8)
	c := openLog(t, url, name, natslog.Options{Checkpoint: path})
	if n, err := c.VerifyHashes(ctx); err != nil || n != 8 {
		t.Fatalf("VerifyHashes from the checkpoint = %d, %v; want 8", n, err)
	}
	_, js := connect(t, url)
	if _, err := js.Publish(ctx, "cos."+strings.ToLower(name)+".log.doc:0", []byte(`{"seq":9}`)); err != nil {
		t.Fatal(err)
	}
	var ie *eventlog.IntegrityError
	if n, err := c.VerifyHashes(ctx); !errors.As(err, &ie) || ie.Seq != 9 || n != 8 {
		t.Fatalf("VerifyHashes after a foreign message = %d, %v; want 8 and an IntegrityError at seq 9", n, err)
	}
}
