package eventlog

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// FormatVersion is the on-disk format written by this package (doc.go).
const FormatVersion = 1

// recordVersion is the first byte of every event record.
const recordVersion byte = 1

// zeroHash is the prev_hash of the first event.
var zeroHash = strings.Repeat("0", 64)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// seqKey encodes a seq as an 8-byte big-endian key, so keys sort by seq.
func seqKey(seq uint64) []byte {
	var k [8]byte
	binary.BigEndian.PutUint64(k[:], seq)
	return k[:]
}

// encodeRecord frames an event: version byte, CRC-32C of the JSON, JSON.
func encodeRecord(ev *Event) ([]byte, error) {
	body, err := json.Marshal(ev)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 5+len(body))
	out[0] = recordVersion
	binary.BigEndian.PutUint32(out[1:5], crc32.Checksum(body, castagnoli))
	copy(out[5:], body)
	return out, nil
}

// DecodeRecord decodes one framed event record as stored in the events
// bucket. It checks the version byte and the CRC but not the hash chain.
func DecodeRecord(b []byte) (Event, error) {
	var ev Event
	if len(b) < 5 {
		return ev, fmt.Errorf("record of %d bytes is shorter than its 5-byte header", len(b))
	}
	if b[0] != recordVersion {
		return ev, fmt.Errorf("record version %d, want %d", b[0], recordVersion)
	}
	body := b[5:]
	if got, want := crc32.Checksum(body, castagnoli), binary.BigEndian.Uint32(b[1:5]); got != want {
		return ev, fmt.Errorf("record checksum %08x, want %08x", got, want)
	}
	// json.Unmarshal rejects trailing data and is ~2× a Decoder here; the
	// version byte and the CRC already guard the format.
	if err := json.Unmarshal(body, &ev); err != nil {
		return ev, fmt.Errorf("decode record: %w", err)
	}
	return ev, nil
}

// EventHash computes the chain hash of ev from its fields and PrevHash (not
// from ev.Hash): SHA-256 over "cos-event-v1" and the length-prefixed fields
// seq, id, time (RFC 3339, nanoseconds, UTC), stream, revision, type,
// request_id, actor pid, actor host, actor client, data, prev_hash.
func EventHash(ev *Event) string {
	h := sha256.New()
	var lenbuf [binary.MaxVarintLen64]byte
	field := func(s string) {
		n := binary.PutUvarint(lenbuf[:], uint64(len(s)))
		h.Write(lenbuf[:n])
		h.Write([]byte(s))
	}
	h.Write([]byte("cos-event-v1"))
	field(strconv.FormatUint(ev.Seq, 10))
	field(ev.ID)
	field(ev.Time.UTC().Format(time.RFC3339Nano))
	field(ev.Stream)
	field(strconv.FormatUint(ev.Revision, 10))
	field(ev.Type)
	field(ev.RequestID)
	field(strconv.Itoa(ev.Actor.PID))
	field(ev.Actor.Host)
	field(ev.Actor.Client)
	field(string(ev.Data))
	field(ev.PrevHash)
	return hex.EncodeToString(h.Sum(nil))
}

// verifyEvent checks one decoded event against its expected seq and the
// previous event's hash.
func verifyEvent(ev *Event, wantSeq uint64, prevHash string) error {
	switch {
	case ev.Seq != wantSeq:
		return &IntegrityError{Seq: wantSeq, Reason: fmt.Sprintf("record holds seq %d", ev.Seq)}
	case ev.PrevHash != prevHash:
		return &IntegrityError{Seq: wantSeq, Reason: fmt.Sprintf("prev_hash %s does not match the hash %s of seq %d", ev.PrevHash, prevHash, wantSeq-1)}
	}
	if got := EventHash(ev); got != ev.Hash {
		return &IntegrityError{Seq: wantSeq, Reason: fmt.Sprintf("hash %s does not match the recomputed %s", ev.Hash, got)}
	}
	return nil
}

// typePattern is the shape of an event type: area.verb_noun, lowercase,
// dot-separated.
var typePattern = regexp.MustCompile(`^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$`)

var hexHash = regexp.MustCompile(`^[0-9a-f]{64}$`)

// ValidateRequestID returns an error wrapping ErrRequestID unless id is
// 1–MaxRequestIDLen characters of valid UTF-8 without control characters
// (seed 002). Append treats an empty RequestID as "no request id"; callers
// that received an explicit empty id should call this to reject it.
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

// prepared is a validated request with its data compacted.
type prepared struct {
	req    AppendRequest
	events []Payload // data compacted
	bytes  int
	intent [32]byte // zero unless RequestID is set
}

// prepare validates req against the limits of opts and compacts its data.
func prepare(req AppendRequest, opts *Options) (prepared, error) {
	p := prepared{req: req}
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
	if len(req.Client) > 256 || !utf8.ValidString(req.Client) {
		return p, &InvalidEventError{Field: "client", Reason: "must be valid UTF-8 of at most 256 bytes"}
	}
	p.events = make([]Payload, len(req.Events))
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
		if len(e.Data) > 4*opts.MaxEventBytes {
			return p, &InvalidEventError{Field: dfield, Reason: fmt.Sprintf("is %d bytes, at most %d allowed", len(e.Data), opts.MaxEventBytes)}
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, e.Data); err != nil {
			return p, &InvalidEventError{Field: dfield, Reason: "is not valid JSON: " + err.Error()}
		}
		if !utf8.Valid(buf.Bytes()) {
			return p, &InvalidEventError{Field: dfield, Reason: "is not valid UTF-8"}
		}
		if buf.Len() > opts.MaxEventBytes {
			return p, &InvalidEventError{Field: dfield, Reason: fmt.Sprintf("is %d bytes, at most %d allowed", buf.Len(), opts.MaxEventBytes)}
		}
		p.events[i] = Payload{Type: e.Type, Data: buf.Bytes()}
		p.bytes += buf.Len()
	}
	if req.RequestID != "" {
		intent, err := intentHash(req.Stream, req.StreamPrefix, req.Expect, req.ExpectedHash, p.events)
		if err != nil {
			return p, err
		}
		p.intent = intent
	}
	return p, nil
}

// intentHash binds a request id to its canonical intent (seed 002): stream or
// stream prefix, expected revision, expected hash, and each event's type and
// data with object keys sorted and numbers kept exactly.
func intentHash(stream, prefix string, exp ExpectedRevision, expHash string, events []Payload) ([32]byte, error) {
	h := sha256.New()
	fmt.Fprintf(h, "cos-intent-v1\x00%s\x00%s\x00%t\x00%d\x00%s\x00%d", stream, prefix, exp.IsSet(), exp.Revision(), expHash, len(events))
	for i, e := range events {
		canon, err := canonicalJSON(e.Data)
		if err != nil {
			return [32]byte{}, &InvalidEventError{Field: fmt.Sprintf("events[%d].data", i), Reason: err.Error()}
		}
		fmt.Fprintf(h, "\x00%s\x00%d\x00", e.Type, len(canon))
		h.Write(canon)
	}
	var out [32]byte
	copy(out[:], h.Sum(nil))
	return out, nil
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
