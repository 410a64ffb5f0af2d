package envelope

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"strconv"
	"strings"
)

// Envelope is one tool answer, success or failure, already serialized.
//
//	success: {"ok":true,"data":{…,"meta":{…}}}
//	failure: {"ok":false,"error":{"category","code","details","message","retryable"}}
//
// The zero Envelope is "no answer" (IsZero); Safe turns it into an internal
// failure.
type Envelope struct {
	doc map[string]any
	raw []byte
	err *Error
}

// OK reports whether e is a success envelope.
func (e Envelope) OK() bool { return e.doc != nil && e.err == nil }

// IsZero reports whether e is the zero Envelope.
func (e Envelope) IsZero() bool { return e.doc == nil }

// JSON returns the envelope as compact, valid UTF-8 JSON with sorted object
// keys. The caller must not modify the returned slice.
func (e Envelope) JSON() []byte { return e.raw }

// Map returns the envelope as a generic JSON tree (map[string]any, []any,
// string, bool, nil, and numbers as json.Number, int, int64, uint64 or
// float64), for MCP structuredContent. The caller must not modify it.
func (e Envelope) Map() map[string]any { return e.doc }

// Err returns the failure of a failure envelope, or nil.
func (e Envelope) Err() *Error { return e.err }

// Data returns data of a success envelope (meta included), or nil.
func (e Envelope) Data() map[string]any {
	if !e.OK() {
		return nil
	}
	d, _ := e.doc["data"].(map[string]any)
	return d
}

// Meta returns data.meta of a success envelope, or nil.
func (e Envelope) Meta() map[string]any {
	m, _ := e.Data()[keyMeta].(map[string]any)
	return m
}

// OK builds a success envelope. data is any value that encodes to a JSON
// object with encoding/json (a struct, a map, json.RawMessage); nil is {}.
// Anything else, an encoding error, or invalid opts give an E_INTERNAL
// failure envelope instead (data is always an object).
//
// A "meta" key in data is replaced: data.meta is built from meta (the
// handler's part) and from the trimmer (tokens_estimated, truncated,
// truncated_*, envelope_unshrinkable), so a handler cannot spoof them.
// The body is then trimmed to opts' budget on its generic
// structure (see budget.go, typed.go); numbers keep encoding/json's text. The caller must not
// modify data after OK returns: a generic map's nested values are shared
// with Envelope.Map().
func OK(data any, meta Meta, opts Options) Envelope {
	if err := opts.Validate(); err != nil {
		return Fail(Wrap(err, CodeInternal, "invalid envelope options"))
	}
	body, err := normalizeBody(data)
	if err != nil {
		return Fail(Wrap(err, CodeInternal, "tool result is not a JSON object"))
	}
	return okBody(body, meta, opts.withDefaults())
}

// okBody builds the success envelope around body, which it owns and may
// modify.
func okBody(body map[string]any, meta Meta, opts Options) Envelope {
	m := meta.generic()
	body[keyMeta] = m
	doc := map[string]any{"ok": true, "data": body}
	t := trimmer{doc: doc, body: body, meta: m}
	t.run(opts, meta.Tool.BudgetChars)
	materialize(body)
	setTokensEstimated(doc, m)
	return Envelope{doc: doc, raw: appendValue(nil, doc)}
}

// setTokensEstimated sets meta.tokens_estimated to the estimate of the
// serialized envelope, the estimate's own digits included.
func setTokensEstimated(doc, m map[string]any) {
	m[KeyTokensEstimated] = 0
	c0 := measure(doc) // "0" counted: one ASCII digit
	tok := c0.tokensEstimated()
	for range 4 { // converges in at most two steps: digits grow by ≤ 1
		next := c0.plus(asciiCost(digits(tok) - 1)).tokensEstimated()
		if next == tok {
			break
		}
		tok = next
	}
	m[KeyTokensEstimated] = tok
}

// normalize turns data into a generic JSON object: encoding/json encodes it,
// decodeGeneric decodes it (as a Decoder with UseNumber would), so numbers
// keep their exact text and invalid UTF-8 is already replaced.
//
// A body that is already a generic tree (map[string]any whose values are only
// map[string]any, []any, string, json.Number, bool, nil, int, int64, float64)
// skips the round trip: its top level is copied, and nothing below the top
// level is ever modified by the trimmer (the string step copies the
// containers on a string's path before cutting it).
func normalize(data any) (map[string]any, error) {
	return normalizeWith(data, decodeGeneric)
}

// normalizeBody is normalize for OK: a typed body is converted without the
// round trip when the conversion mirrors it (typed.go), and top-level
// trimmable lists stay lazy (lazy.go).
func normalizeBody(data any) (map[string]any, error) {
	if data != nil {
		if m, ok := data.(map[string]any); !ok || m == nil || !isGeneric(m, 0) {
			if body, ok := typedBody(data); ok {
				return body, nil
			}
		}
	}
	return normalizeWith(data, decodeBody)
}

func normalizeWith(data any, decode func([]byte) (any, error)) (map[string]any, error) {
	if data == nil {
		return map[string]any{}, nil
	}
	if m, ok := data.(map[string]any); ok && m != nil && isGeneric(m, 0) {
		return maps.Clone(m), nil
	}
	b, err := json.Marshal(data)
	if err != nil {
		return nil, fmt.Errorf("encode data: %w", err)
	}
	v, err := decode(b)
	if err != nil {
		return nil, fmt.Errorf("decode data: %w", err)
	}
	switch x := v.(type) {
	case map[string]any:
		return x, nil
	case nil:
		return map[string]any{}, nil // a nil map or pointer
	default:
		return nil, fmt.Errorf("%w: got %s", ErrNotObject, jsonKind(x))
	}
}

// maxGenericDepth bounds isGeneric's recursion, as encoding/json bounds
// nesting; deeper trees take the round trip.
const maxGenericDepth = 1000

// isGeneric reports whether v holds only the types the encoder writes the way
// encoding/json would: no structs, no typed slices or maps, no NaN or ±Inf,
// valid json.Number text.
func isGeneric(v any, depth int) bool {
	if depth > maxGenericDepth {
		return false
	}
	switch x := v.(type) {
	case nil, bool, string, int, int64:
		return true
	case float64:
		return !math.IsNaN(x) && !math.IsInf(x, 0)
	case json.Number:
		_, err := strconv.ParseFloat(string(x), 64)
		return err == nil && json.Valid([]byte(x))
	case []any:
		for _, e := range x {
			if !isGeneric(e, depth+1) {
				return false
			}
		}
		return true
	case map[string]any:
		for _, e := range x {
			if !isGeneric(e, depth+1) {
				return false
			}
		}
		return true
	default:
		return false
	}
}

func jsonKind(v any) string {
	switch v.(type) {
	case []any:
		return "array"
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	default:
		return fmt.Sprintf("%T", v)
	}
}

// Message of the envelope an unexpected error becomes. It says where to look
// and nothing more: the internals go to the forensic log.
const internalMessage = "internal error; the server log (.mcp.log) has the details"

// AsError returns the *Error the agent sees for err:
//
//   - an *Error anywhere in err's chain, as is (its empty fields filled from
//     the catalogue);
//   - context.DeadlineExceeded (a deadline of the server's): E_TIMEOUT,
//     transient;
//   - context.Canceled (the caller cancelled, or the server is shutting
//     down): E_CANCELLED, transient — never E_TIMEOUT;
//   - anything else: E_INTERNAL with a short message, err kept as Cause.
func AsError(err error) *Error {
	var e *Error
	switch {
	case err == nil:
		return Errorf(CodeInternal, "%s", internalMessage).WithCause(ErrNoEnvelope)
	case errors.As(err, &e):
		c := *e
		if c.Code == "" {
			c.Code = CodeInternal
		}
		if c.Category == "" {
			c.Category = c.Code.Category()
			c.Retryable = c.Retryable || c.Category.Retryable()
		}
		if c.Message == "" {
			c.Message = string(c.Code)
		}
		return &c
	case errors.Is(err, context.DeadlineExceeded):
		return Wrap(err, CodeTimeout, "the request ran out of time")
	case errors.Is(err, context.Canceled):
		return Wrap(err, CodeCancelled, "the request was cancelled before it finished; what it committed before stays committed")
	default:
		return Wrap(err, CodeInternal, "%s", internalMessage)
	}
}

// WithCause returns a copy of e with Cause set.
func (e *Error) WithCause(cause error) *Error {
	c := *e
	c.Cause = cause
	return &c
}

// Fail builds a failure envelope for err (see AsError for the mapping).
func Fail(err error) Envelope {
	e := AsError(err)
	details, derr := normalize(e.Details)
	if derr != nil {
		details = map[string]any{"details_error": "details are not JSON-encodable"}
	}
	doc := map[string]any{
		"ok": false,
		"error": map[string]any{
			"category":  string(e.Category),
			"code":      string(e.Code),
			"message":   strings.ToValidUTF8(e.Message, "\uFFFD"),
			"retryable": e.Retryable,
			"details":   details,
		},
	}
	return Envelope{doc: doc, raw: appendValue(nil, doc), err: e}
}
