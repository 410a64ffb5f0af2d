package eventlog

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxClientLen is the longest AppendRequest.Client, in bytes.
const maxClientLen = 256

// typePattern is the shape of an event type: area.verb_noun, lowercase,
// dot-separated.
var typePattern = regexp.MustCompile(`^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$`)

var hexHash = regexp.MustCompile(`^[0-9a-f]{64}$`)

// ValidateRequestID returns an error wrapping ErrRequestID unless id is
// 1–MaxRequestIDLen characters of valid UTF-8 without control characters
// and not only whitespace. Append treats an empty RequestID as "no request
// id"; callers that received an explicit empty id should call this to
// reject it.
func ValidateRequestID(id string) error {
	bad := func(reason string) error {
		return &InvalidEventError{Field: "request_id", Reason: reason, cause: ErrRequestID}
	}
	switch n := utf8.RuneCountInString(id); {
	case id == "":
		return bad("nonempty request_id required (1–128 characters)")
	case !utf8.ValidString(id):
		return bad("request_id is not valid UTF-8")
	case n > MaxRequestIDLen:
		return bad(fmt.Sprintf("request_id has %d characters, at most %d allowed", n, MaxRequestIDLen))
	case strings.TrimSpace(id) == "":
		return bad("request_id is only whitespace")
	}
	for _, r := range id {
		if unicode.IsControl(r) {
			return bad("request_id holds a control character")
		}
	}
	return nil
}

// validateStreamName checks a stream name or prefix: 1–MaxStreamLen bytes
// of valid UTF-8 without whitespace or control characters. field names it
// in the error.
func validateStreamName(field, s string) error {
	bad := func(reason string) error { return &InvalidEventError{Field: field, Reason: reason} }
	switch {
	case s == "":
		return bad("must not be empty")
	case len(s) > MaxStreamLen:
		return bad(fmt.Sprintf("is %d bytes, at most %d allowed", len(s), MaxStreamLen))
	case !utf8.ValidString(s):
		return bad("is not valid UTF-8")
	}
	for _, r := range s {
		if unicode.IsControl(r) || unicode.IsSpace(r) {
			return bad(fmt.Sprintf("holds whitespace or a control character (%q)", r))
		}
	}
	return nil
}

// Prepared is an AppendRequest that passed Prepare: valid, its data
// compacted, its intent hashed. It is what a backend decides and writes.
type Prepared struct {
	// Request is the request as the caller sent it.
	Request AppendRequest
	// Events are Request.Events with their data compacted: the payloads
	// the log stores and hashes.
	Events []Payload
	// Bytes is the size of the compacted data of all Events.
	Bytes int
	// Intent is the canonical intent hash that Request.RequestID binds
	// (doc.go, "Request ids"); zero when the request has no request id.
	Intent [32]byte
}

// Prepare checks req against the rules every backend enforces and lim, and
// compacts its data, before any storage is touched. A request it refuses
// fails alone, writing nothing: the error is an *InvalidEventError (which
// matches ErrInvalidEvent, or ErrRequestID for a bad request id) naming the
// field. The rules: exactly one of Stream and StreamPrefix, 1–MaxStreamLen
// bytes without whitespace or control characters; no expected revision
// other than NoStream for an allocated stream; a valid request id when one
// is set (ValidateRequestID); an ExpectedHash of 64 lowercase hex digits
// when one is set; at least one event; each type shaped like area.verb_noun
// and at most MaxTypeLen bytes; each data valid UTF-8 JSON of at most
// lim.MaxEventBytes bytes once compacted; a Client of at most 256 bytes of
// valid UTF-8.
func Prepare(req AppendRequest, lim Limits) (Prepared, error) {
	maxBytes := lim.maxEventBytes()
	p := Prepared{Request: req}
	switch {
	case req.Stream != "" && req.StreamPrefix != "":
		return p, &InvalidEventError{Field: "stream", Reason: "set stream or stream_prefix, not both"}
	case req.Stream == "" && req.StreamPrefix == "":
		return p, &InvalidEventError{Field: "stream", Reason: "must not be empty"}
	case req.Stream != "":
		if err := validateStreamName("stream", req.Stream); err != nil {
			return p, err
		}
	default:
		if err := validateStreamName("stream_prefix", req.StreamPrefix); err != nil {
			return p, err
		}
		if req.Expect.IsSet() && req.Expect.Revision() != 0 {
			return p, &InvalidEventError{Field: "expect", Reason: "an allocated stream is always new; expect no revision or no stream"}
		}
	}
	if req.RequestID != "" {
		if err := ValidateRequestID(req.RequestID); err != nil {
			return p, err
		}
	}
	if req.ExpectedHash != "" && !hexHash.MatchString(req.ExpectedHash) {
		return p, &InvalidEventError{Field: "expected_hash", Reason: fmt.Sprintf("%q is not 64 lowercase hex digits", req.ExpectedHash)}
	}
	if len(req.Events) == 0 {
		return p, &InvalidEventError{Field: "events", Reason: "at least one event required"}
	}
	if len(req.Client) > maxClientLen || !utf8.ValidString(req.Client) {
		return p, &InvalidEventError{Field: "client", Reason: "must be valid UTF-8 of at most 256 bytes"}
	}
	p.Events = make([]Payload, len(req.Events))
	for i, e := range req.Events {
		field := "type"
		if len(req.Events) > 1 {
			field = fmt.Sprintf("events[%d].type", i)
		}
		if len(e.Type) > MaxTypeLen || !typePattern.MatchString(e.Type) {
			return p, &InvalidEventError{Field: field, Reason: fmt.Sprintf("%q is not shaped like area.verb_noun (lowercase, dot-separated, e.g. \"task.updated\")", truncate(e.Type, 80))}
		}
		dfield := strings.TrimSuffix(field, "type") + "data"
		if len(bytes.TrimSpace(e.Data)) == 0 {
			return p, &InvalidEventError{Field: dfield, Reason: "must be JSON, got nothing"}
		}
		if len(e.Data) > 4*maxBytes {
			return p, &InvalidEventError{Field: dfield, Reason: fmt.Sprintf("is %d bytes, at most %d allowed", len(e.Data), maxBytes)}
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, e.Data); err != nil {
			return p, &InvalidEventError{Field: dfield, Reason: "is not valid JSON: " + err.Error()}
		}
		if !utf8.Valid(buf.Bytes()) {
			return p, &InvalidEventError{Field: dfield, Reason: "is not valid UTF-8"}
		}
		if buf.Len() > maxBytes {
			return p, &InvalidEventError{Field: dfield, Reason: fmt.Sprintf("is %d bytes, at most %d allowed", buf.Len(), maxBytes)}
		}
		p.Events[i] = Payload{Type: e.Type, Data: buf.Bytes()}
		p.Bytes += buf.Len()
	}
	if req.RequestID != "" {
		intent, err := intentHash(req.Stream, req.StreamPrefix, req.Expect, req.ExpectedHash, p.Events)
		if err != nil {
			return p, err
		}
		p.Intent = intent
	}
	return p, nil
}

// intentHash binds a request id to its canonical intent: stream or stream
// prefix, expected revision, expected hash, and each event's type and data
// with object keys sorted and numbers kept exactly (docs/storage.md,
// "Request-id intent", has the byte layout).
func intentHash(stream, prefix string, exp ExpectedRevision, expHash string, events []Payload) ([32]byte, error) {
	canon, err := canonicalEvents(events)
	if err != nil {
		return [32]byte{}, err
	}
	return canonicalIntent(stream, prefix, exp, expHash, canon), nil
}

// canonicalEvents returns events with their data as canonicalJSON.
func canonicalEvents(events []Payload) ([]Payload, error) {
	out := make([]Payload, len(events))
	for i, e := range events {
		canon, err := canonicalJSON(e.Data)
		if err != nil {
			return nil, &InvalidEventError{Field: fmt.Sprintf("events[%d].data", i), Reason: err.Error()}
		}
		out[i] = Payload{Type: e.Type, Data: canon}
	}
	return out, nil
}

// canonicalIntent is intentHash of events whose data is canonical already.
func canonicalIntent(stream, prefix string, exp ExpectedRevision, expHash string, canon []Payload) [32]byte {
	h := sha256.New()
	fmt.Fprintf(h, "cos-intent-v1\x00%s\x00%s\x00%t\x00%d\x00%s\x00%d", stream, prefix, exp.IsSet(), exp.Revision(), expHash, len(canon))
	for _, e := range canon {
		fmt.Fprintf(h, "\x00%s\x00%d\x00", e.Type, len(e.Data))
		h.Write(e.Data)
	}
	var out [32]byte
	copy(out[:], h.Sum(nil))
	return out
}

// canonicalJSON re-encodes JSON with object keys sorted and numbers as
// written.
func canonicalJSON(b []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
