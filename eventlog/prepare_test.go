package eventlog

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestValidateRequestID(t *testing.T) {
	if err := ValidateRequestID(""); !errors.Is(err, ErrRequestID) {
		t.Errorf("ValidateRequestID(\"\") = %v, want ErrRequestID", err)
	}
	if err := ValidateRequestID(strings.Repeat("é", MaxRequestIDLen)); err != nil {
		t.Errorf("ValidateRequestID of %d characters = %v", MaxRequestIDLen, err)
	}
}

func one(stream, typ, data string) AppendRequest {
	return AppendRequest{Stream: stream, Events: []Payload{{Type: typ, Data: json.RawMessage(data)}}}
}

// Prepare refuses a malformed request with an *InvalidEventError naming the
// field, matching ErrInvalidEvent (ErrRequestID for the request id).
func TestPrepare_Refuses(t *testing.T) {
	with := func(r AppendRequest, edit func(*AppendRequest)) AppendRequest { edit(&r); return r }
	ok := one("s", "a.b", `{}`)
	for _, c := range []struct {
		name  string
		req   AppendRequest
		field string
		is    error
	}{
		{"no stream", one("", "a.b", `{}`), "stream", ErrInvalidEvent},
		{"stream and prefix", with(ok, func(r *AppendRequest) { r.StreamPrefix = "p-" }), "stream", ErrInvalidEvent},
		{"space in stream", one("a b", "a.b", `{}`), "stream", ErrInvalidEvent},
		{"long stream", one(strings.Repeat("s", MaxStreamLen+1), "a.b", `{}`), "stream", ErrInvalidEvent},
		{"revision of an allocated stream", AppendRequest{StreamPrefix: "p-", Expect: AtRevision(1), Events: ok.Events}, "expect", ErrInvalidEvent},
		{"request id", with(ok, func(r *AppendRequest) { r.RequestID = " " }), "request_id", ErrRequestID},
		{"expected hash", with(ok, func(r *AppendRequest) { r.ExpectedHash = "ABC" }), "expected_hash", ErrInvalidEvent},
		{"no events", AppendRequest{Stream: "s"}, "events", ErrInvalidEvent},
		{"client", with(ok, func(r *AppendRequest) { r.Client = strings.Repeat("c", 257) }), "client", ErrInvalidEvent},
		{"type", one("s", "Task", `{}`), "type", ErrInvalidEvent},
		{"no data", one("s", "a.b", ` `), "data", ErrInvalidEvent},
		{"not JSON", one("s", "a.b", `{`), "data", ErrInvalidEvent},
		{"second type", with(ok, func(r *AppendRequest) { r.Events = append(r.Events, Payload{Type: "x"}) }), "events[1].type", ErrInvalidEvent},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Prepare(c.req, Limits{})
			var ie *InvalidEventError
			if !errors.Is(err, c.is) || !errors.As(err, &ie) || ie.Field != c.field {
				t.Fatalf("Prepare = %v, want %v on field %q", err, c.is, c.field)
			}
		})
	}
}

func TestPrepare_MaxEventBytes(t *testing.T) {
	big := one("s", "a.b", `{"s":"`+strings.Repeat("x", 100)+`"}`)
	if _, err := Prepare(big, Limits{MaxEventBytes: 64}); !errors.Is(err, ErrInvalidEvent) {
		t.Fatalf("Prepare over Limits.MaxEventBytes = %v, want ErrInvalidEvent", err)
	}
	if _, err := Prepare(big, Limits{}); err != nil {
		t.Fatalf("Prepare under the default limit = %v", err)
	}
}

// Prepare compacts the data, and the intent a request id binds ignores
// object key order and spacing but not values.
func TestPrepare_CompactsAndBindsIntent(t *testing.T) {
	r := one("s", "a.b", `{ "b": 1, "a": [1.50, "é"] }`)
	p, err := Prepare(r, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(p.Events[0].Data), `{"b":1,"a":[1.50,"é"]}`; got != want || p.Bytes != len(want) {
		t.Fatalf("compacted %s (%d bytes), want %s", got, p.Bytes, want)
	}
	if p.Intent != [32]byte{} {
		t.Fatal("a request without request id has an intent")
	}
	intent := func(data string) [32]byte {
		t.Helper()
		r := one("s", "a.b", data)
		r.RequestID = "r1"
		p, err := Prepare(r, Limits{})
		if err != nil {
			t.Fatal(err)
		}
		return p.Intent
	}
	if intent(`{"b":1,"a":[1.50]}`) != intent(`{"a": [1.50], "b": 1}`) {
		t.Error("key order changed the intent")
	}
	if intent(`{"a":[1.50]}`) == intent(`{"a":[1.5]}`) {
		t.Error("a number written differently has the same intent")
	}
}
