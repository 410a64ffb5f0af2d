package boltlog

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/cos-dev/cos/eventlog"
	bolt "go.etcd.io/bbolt"
)

// variedEvents appends events that take every branch of the canonical
// layout and several that leave it (escaped strings, a payload with
// strings holding brackets and escapes), so that VerifyHashes reads some
// records in place and decodes the others.
func variedEvents(t *testing.T) (*Log, string) {
	l, path := openTestLog(t, Options{Actor: eventlog.Actor{Client: "codex"}, ReadChunk: 3})
	reqs := []eventlog.AppendRequest{
		req("s", "a.b", `{"marker":"MARKA"}`),
		{Stream: "s", RequestID: "r-1", Events: []eventlog.Payload{{Type: "a.b", Data: json.RawMessage(`{"marker":"MARKB","s":"}]\"\\"}`)}}},
		req("task:<x>", "a.b", `{"marker":"MARKC"}`), // json.Marshal escapes <: decoded
		req("s", "a.b", `["MARKD",1,-2.5e3,true,false,null]`),
		req("s", "a.b", `"MARKE"`),
		req("s", "a.b", `12`),
		req("s", "a.b", `{"marker":"MARKF","u":"é\u2028"}`),
	}
	for _, r := range reqs {
		mustAppend(t, l, r)
	}
	return l, path
}

func TestLog_VerifyHashes_MatchesVerify(t *testing.T) {
	l, _ := variedEvents(t)
	ctx := context.Background()
	n, err := l.VerifyHashes(ctx)
	if err != nil || n != 7 {
		t.Fatalf("VerifyHashes = %d, %v; want 7, nil", n, err)
	}
	// Every record read in place gives the fields json.Unmarshal gives.
	raws, err := l.readChunk(ctx, 1, 100)
	if err != nil {
		t.Fatal(err)
	}
	inPlace := 0
	for i, raw := range raws {
		want, err := DecodeRecord(raw)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := parseCanonical(raw[5:])
		if !ok {
			continue
		}
		inPlace++
		if !reflect.DeepEqual(got, want) {
			t.Errorf("seq %d read in place as %+v, decoded %+v", i+1, got, want)
		}
	}
	if inPlace < 5 || inPlace == len(raws) {
		t.Errorf("%d of %d records read in place; want most, not all (one stream name is escaped)", inPlace, len(raws))
	}
}

// TestLog_VerifyHashes_FindsWhatVerifyFinds damages a log in each way the
// full walk catches and checks that both walks stop at the same seq.
func TestLog_VerifyHashes_FindsWhatVerifyFinds(t *testing.T) {
	cases := []struct {
		name    string
		damage  func(t *testing.T, path string)
		wantSeq uint64
	}{
		{"flipped byte in the payload", func(t *testing.T, path string) { flipInFile(t, path, "MARKB") }, 2},
		{"payload rewritten, checksum valid", func(t *testing.T, path string) {
			rewriteRecord(t, path, 4, func(ev *eventlog.Event) { ev.Data = json.RawMessage(`["MARKD",1]`) })
		}, 4},
		{"type rewritten in the first record", func(t *testing.T, path string) {
			rewriteRecord(t, path, 1, func(ev *eventlog.Event) { ev.Type = "a.forged" })
		}, 1},
		{"time rewritten", func(t *testing.T, path string) {
			rewriteRecord(t, path, 5, func(ev *eventlog.Event) { ev.Time = ev.Time.Add(1) })
		}, 5},
		{"prev_hash rewritten", func(t *testing.T, path string) {
			rewriteRecord(t, path, 6, func(ev *eventlog.Event) { ev.PrevHash = eventlog.ZeroHash })
		}, 6},
		{"escaped record rewritten", func(t *testing.T, path string) {
			rewriteRecord(t, path, 3, func(ev *eventlog.Event) { ev.Actor.PID++ })
		}, 3},
		{"event missing", func(t *testing.T, path string) {
			markCorrupted(path)
			db, err := bolt.Open(path, 0o644, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if err := db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketEvents).Delete(seqKey(3)) }); err != nil {
				t.Fatal(err)
			}
		}, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l, path := variedEvents(t)
			c.damage(t, path)
			ctx := context.Background()
			vn, verr := l.Verify(ctx)
			hn, herr := l.VerifyHashes(ctx)
			var vie, hie *eventlog.IntegrityError
			if !errors.As(verr, &vie) || !errors.As(herr, &hie) {
				t.Fatalf("Verify = %v, VerifyHashes = %v; want integrity errors from both", verr, herr)
			}
			// Verify counts none of a chunk that has a hole; VerifyHashes
			// counts every event before the break.
			if vie.Seq != c.wantSeq || hie.Seq != c.wantSeq || hn != c.wantSeq-1 {
				t.Fatalf("Verify stops at seq %d after %d events, VerifyHashes at seq %d after %d; want seq %d after %d", vie.Seq, vn, hie.Seq, hn, c.wantSeq, c.wantSeq-1)
			}
		})
	}
}

// FuzzParseCanonical checks that a body read in place holds what
// json.Unmarshal reads from it whenever the body is valid JSON.
func FuzzParseCanonical(f *testing.F) {
	ev := eventlog.Event{Seq: 7, ID: "01J", Stream: "s", Revision: 2, Type: "a.b", RequestID: "r", Actor: eventlog.Actor{PID: -3, Host: "h", Client: "c"},
		Data: json.RawMessage(`{"a":["}",1]}`), PrevHash: eventlog.ZeroHash, Hash: eventlog.ZeroHash}
	b, _ := json.Marshal(&ev)
	f.Add(b)
	ev.RequestID, ev.Actor.Client, ev.Data = "", "", json.RawMessage(`"x"`)
	b, _ = json.Marshal(&ev)
	f.Add(b)
	f.Fuzz(func(t *testing.T, body []byte) {
		got, ok := parseCanonical(body)
		if !ok || !json.Valid(body) {
			return
		}
		var want eventlog.Event
		if err := json.Unmarshal(body, &want); err != nil {
			t.Fatalf("read in place, but json.Unmarshal fails: %v", err)
		}
		if !reflect.DeepEqual(got, want) || !got.Time.Equal(want.Time) {
			t.Fatalf("read in place as %+v, json.Unmarshal gives %+v", got, want)
		}
	})
}
