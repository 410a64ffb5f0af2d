package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
)

// Messages Go's JSON decoder cannot hold.
//
// mcp-go decodes every message into Go values. A number no float64 holds
// (1e400) fails that with a JSON-RPC error naming Go struct fields, and a
// message nesting deeper than encoding/json allows (10000 levels) with a
// parse error whose id is null. Both are answered here first: a tools/call
// goes to its tool with the arguments as sent (the tool refuses them with
// E_ARGUMENT, as any argument it cannot take), anything else gets a
// JSON-RPC error with the request's id, whenever the id can be read.

// undecodableResponse answers a message mcp-go could not decode (see
// above); it returns nil for every other message.
func (s *Server) undecodableResponse(line []byte) []byte {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"params"`
	}
	err := json.Unmarshal(line, &m)
	switch {
	case err == nil:
		if m.Method != string(mcp.MethodToolsCall) || len(m.ID) == 0 || len(m.Params.Arguments) == 0 {
			return nil
		}
		var v any
		var typeErr *json.UnmarshalTypeError
		if err := json.Unmarshal(m.Params.Arguments, &v); !errors.As(err, &typeErr) {
			return nil
		}
		return s.toolAnswer(m.ID, m.Params.Name, m.Params.Arguments)
	case !strings.Contains(err.Error(), "exceeded max depth"):
		return nil // not JSON at all: mcp-go answers -32700
	}
	top, ok := shallowFields(line)
	if !ok || len(top.id) == 0 {
		return nil // no id to answer with: mcp-go answers -32700
	}
	if top.method == string(mcp.MethodToolsCall) && top.name != "" && top.args != nil {
		return s.toolAnswer(top.id, top.name, top.args)
	}
	out, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": top.id, "error": map[string]any{
		"code": mcp.INVALID_REQUEST, "message": "the message nests arrays and objects deeper than 10000 levels"}})
	return out
}

// toolAnswer runs tool name with raw arguments and wraps its envelope as
// the result of request id.
func (s *Server) toolAnswer(id json.RawMessage, name string, args json.RawMessage) []byte {
	res := resultOf(s.call(context.Background(), name, args))
	out, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "result": res})
	if err != nil {
		return nil
	}
	return out
}

// topFields are the members of a message shallowFields reads.
type topFields struct {
	id     json.RawMessage // a string or number, as sent
	method string
	name   string          // params.name
	args   json.RawMessage // params.arguments, as sent
}

// shallowFields reads a message's id, method, params.name and
// params.arguments token by token, which encoding/json does without a
// depth limit. It reports false for text that is not one JSON object.
func shallowFields(line []byte) (topFields, bool) {
	var f topFields
	d := json.NewDecoder(bytes.NewReader(line))
	d.UseNumber()
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return f, false
	}
	for d.More() {
		key, err := d.Token()
		if err != nil {
			return f, false
		}
		switch key {
		case "id":
			start := d.InputOffset()
			t, err := d.Token()
			if err != nil {
				return f, false
			}
			switch t.(type) {
			case string, json.Number:
				f.id = json.RawMessage(bytes.TrimLeft(line[start:d.InputOffset()], " \t\r\n:"))
			case json.Delim:
				if skipRest(d) != nil {
					return f, false
				}
			}
		case "method":
			t, err := d.Token()
			if err != nil {
				return f, false
			}
			f.method, _ = t.(string)
			if _, ok := t.(json.Delim); ok && skipRest(d) != nil {
				return f, false
			}
		case "params":
			if t, err := d.Token(); err != nil {
				return f, false
			} else if t != json.Delim('{') {
				if _, ok := t.(json.Delim); ok && skipRest(d) != nil {
					return f, false
				}
				continue
			}
			if !paramsFields(d, line, &f) {
				return f, false
			}
		default:
			if skipValue(d) != nil {
				return f, false
			}
		}
	}
	return f, true
}

// paramsFields reads name and arguments of the params object d is in.
func paramsFields(d *json.Decoder, line []byte, f *topFields) bool {
	for d.More() {
		key, err := d.Token()
		if err != nil {
			return false
		}
		start := d.InputOffset()
		switch key {
		case "name":
			t, err := d.Token()
			if err != nil {
				return false
			}
			f.name, _ = t.(string)
			if _, ok := t.(json.Delim); ok && skipRest(d) != nil {
				return false
			}
		case "arguments":
			if skipValue(d) != nil {
				return false
			}
			f.args = json.RawMessage(bytes.TrimLeft(line[start:d.InputOffset()], " \t\r\n:"))
		default:
			if skipValue(d) != nil {
				return false
			}
		}
	}
	_, err := d.Token() // the closing brace
	return err == nil
}

// skipValue reads one whole value.
func skipValue(d *json.Decoder) error {
	t, err := d.Token()
	if err != nil {
		return err
	}
	if _, ok := t.(json.Delim); ok {
		return skipRest(d)
	}
	return nil
}

// skipRest reads to the end of the array or object just opened.
func skipRest(d *json.Decoder) error {
	for depth := 1; depth > 0; {
		t, err := d.Token()
		if err == io.EOF {
			return io.ErrUnexpectedEOF
		}
		if err != nil {
			return err
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
	return nil
}
