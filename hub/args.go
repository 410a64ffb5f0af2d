package hub

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/tools"
)

// queryArgs turns a read route's query into the tool's JSON arguments,
// each value converted by its parameter's type:
//
//	string                 as it is
//	integer, number        decimal text ("limit=50")
//	boolean                true, false, 1 or 0
//	list of strings        repeated (kinds=a&kinds=b) or comma-separated (kinds=a,b)
//	object, list of objects JSON text
//	any JSON (at, since)   an integer when it is one, else a string (or JSON text where the tool takes an object)
//
// A value that does not convert is E_ARGUMENT naming the parameter; a
// parameter the tool does not take goes to the tool as a string, which
// refuses it naming the ones it accepts. path holds the arguments the
// path carries; the query may not repeat them.
func queryArgs(t *tools.Tool, aliases map[string]string, q url.Values, path map[string]string) (json.RawMessage, *envelope.Error) {
	args := map[string]json.RawMessage{}
	for arg, v := range path {
		args[arg] = jsonString(v)
	}
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	from := map[string]string{} // tool argument → the query parameter that set it
	for _, k := range keys {
		vals := q[k]
		arg := k
		if a, ok := aliases[k]; ok {
			arg = a
		}
		if _, ok := path[arg]; ok {
			return nil, errorf(k, "%s is part of the path, not a query parameter", k)
		}
		if prev, ok := from[arg]; ok {
			return nil, errorf(k, "query parameters %s and %s name the same argument; send one", prev, k)
		}
		from[arg] = k
		p, known := param(t, arg)
		if !known {
			args[arg] = jsonString(strings.Join(vals, ","))
			continue
		}
		v, err := queryValue(p, k, vals)
		if err != nil {
			return nil, err
		}
		args[arg] = v
	}
	b, _ := json.Marshal(args)
	return b, nil
}

// readQuery parses req's query string. One Go cannot read whole — a bad
// escape (%zz), a ";" separator, more parameters than it parses — is
// E_ARGUMENT: the parameters it would drop are never taken as not sent.
func readQuery(req *http.Request) (url.Values, *envelope.Error) {
	q, err := url.ParseQuery(req.URL.RawQuery)
	if err != nil {
		return nil, errorf("query", "the query string cannot be read: %s; separate parameters with & and write %% as %%25",
			clip(err.Error(), 200))
	}
	return q, nil
}

// queryValue converts the values of query parameter name to p's type.
func queryValue(p tools.Param, name string, vals []string) (json.RawMessage, *envelope.Error) {
	if p.Type == tools.TStringList {
		list := []string{}
		for _, v := range vals {
			if v == "" {
				continue
			}
			for _, s := range strings.Split(v, ",") {
				list = append(list, strings.TrimSpace(s))
			}
		}
		b, _ := json.Marshal(list)
		return b, nil
	}
	if len(vals) > 1 {
		return nil, convErr(name, strings.Join(vals, ", "), p.Type.String()+", once").
			WithDetails(map[string]any{"got": vals})
	}
	v := vals[0]
	switch p.Type {
	case tools.TString:
		return jsonString(v), nil
	case tools.TInt:
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return nil, convErr(name, v, "an integer")
		}
		return json.RawMessage(strconv.FormatInt(n, 10)), nil
	case tools.TNumber:
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || f != f || f > 1e308 || f < -1e308 {
			return nil, convErr(name, v, "a number")
		}
		return json.RawMessage(strconv.FormatFloat(f, 'g', -1, 64)), nil
	case tools.TBool:
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "true", "1":
			return json.RawMessage("true"), nil
		case "false", "0":
			return json.RawMessage("false"), nil
		}
		return nil, convErr(name, v, "a boolean: true, false, 1 or 0")
	case tools.TObject, tools.TObjectList:
		b := bytes.TrimSpace([]byte(v))
		if !json.Valid(b) {
			return nil, convErr(name, v, p.Type.String()+" as JSON text")
		}
		return b, nil
	}
	// TJSON: an integer where the tool takes one, JSON text where it takes
	// an object or a list, else a string.
	takes := func(typ string) bool {
		if len(p.JSONTypes) == 0 {
			return true
		}
		for _, t := range p.JSONTypes {
			if t == typ {
				return true
			}
		}
		return false
	}
	s := strings.TrimSpace(v)
	if takes("integer") || takes("number") {
		if _, err := strconv.ParseUint(s, 10, 64); err == nil {
			return json.RawMessage(s), nil
		}
	}
	if (takes("object") && strings.HasPrefix(s, "{")) || (takes("array") && strings.HasPrefix(s, "[")) {
		if json.Valid([]byte(s)) {
			return json.RawMessage(s), nil
		}
		return nil, convErr(name, v, "JSON text")
	}
	if takes("string") {
		return jsonString(v), nil
	}
	return nil, convErr(name, v, "one of "+strings.Join(p.JSONTypes, ", "))
}

// convErr is E_ARGUMENT for a query value that does not convert.
func convErr(name, got, expected string) *envelope.Error {
	return envelope.Errorf(envelope.CodeArgument, "query parameter %s: got %q, expected %s", name, clip(got, 80), expected).
		WithDetails(map[string]any{"field": name, "got": clip(got, 80), "expected": expected})
}

// bodyArgs turns a write route's JSON body (its Content-Type checked
// before, by jsonContentType) into the tool's arguments: the
// body object with the path's arguments added (and, under If-Match,
// base_revision). A body that is not a JSON object goes to the tool as it
// is, which says what is wrong with it.
func bodyArgs(rt route, req *http.Request, body []byte, path map[string]string) (json.RawMessage, *envelope.Error) {
	if len(bytes.TrimSpace(body)) == 0 {
		body = []byte("{}")
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(body, &obj); err != nil || obj == nil {
		return body, nil
	}
	if k, dup := tools.DuplicateKey(body); dup {
		return nil, errorf(clip(k, 64), "%s appears twice in the body; send each key once", clip(k, 64))
	}
	if rt.bodyKeys != nil {
		var unknown []string
		for k := range obj {
			if !contains(rt.bodyKeys, k) {
				unknown = append(unknown, clip(k, 64))
			}
		}
		if len(unknown) > 0 {
			sort.Strings(unknown)
			hint := ""
			if contains(unknown, "base_revision") {
				hint = "; send the revision as If-Match"
			}
			return nil, envelope.Errorf(envelope.CodeArgument, "unknown body key %s: %s %s accepts %s%s",
				strings.Join(unknown, ", "), rt.method, rt.pattern, strings.Join(rt.bodyKeys, ", "), hint).
				WithDetails(map[string]any{"unknown": unknown, "accepted": rt.bodyKeys})
		}
	}
	for arg, v := range path {
		if _, ok := obj[arg]; ok {
			return nil, errorf(arg, "%s comes from the path; leave it out of the body", arg)
		}
		obj[arg] = jsonString(v)
	}
	if rt.ifMatch {
		// Several If-Match headers are one list ("1", "2"), which
		// parseIfMatch refuses: none of them is taken alone.
		// An If-Match sent empty (a script's unset $ETAG) is refused
		// too, not read as no condition.
		if vs := req.Header.Values("If-Match"); len(vs) > 0 {
			h := strings.Join(vs, ", ")
			rev, err := parseIfMatch(h)
			if err != nil {
				return nil, err
			}
			if rev > 0 {
				obj["base_revision"] = json.RawMessage(strconv.FormatUint(rev, 10))
			}
		}
	}
	b, _ := json.Marshal(obj)
	return b, nil
}

// parseIfMatch reads If-Match: a revision as an entity tag ("7", W/"7")
// or a bare number (7); * is any revision (0).
func parseIfMatch(h string) (uint64, *envelope.Error) {
	s := strings.TrimSpace(h)
	if s == "*" {
		return 0, nil
	}
	s = strings.TrimPrefix(s, "W/")
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		s = s[1 : len(s)-1]
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil || n == 0 {
		return 0, envelope.Errorf(envelope.CodeArgument, `If-Match: got %q, expected the task's revision as "7" (the ETag of GET /api/tasks/{id}) or 7`, clip(h, 80)).
			WithDetails(map[string]any{"field": "If-Match", "got": clip(h, 80)})
	}
	return n, nil
}

// param returns t's parameter named name.
func param(t *tools.Tool, name string) (tools.Param, bool) {
	for _, p := range t.Params {
		if p.Name == name {
			return p, true
		}
	}
	return tools.Param{}, false
}

func jsonString(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
