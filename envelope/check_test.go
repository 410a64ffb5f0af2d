package envelope

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// decodeJSON decodes b with UseNumber, failing the test on error.
func decodeJSON(t testing.TB, b []byte) map[string]any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("decode %q: %v", truncateForLog(b), err)
	}
	return m
}

func truncateForLog(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "…"
	}
	return string(b)
}

// asInt reads a JSON number from a decoded tree.
func asInt(t testing.TB, v any) int {
	t.Helper()
	if i, ok := v.(int); ok {
		return i
	}
	n, ok := v.(json.Number)
	if !ok {
		t.Fatalf("%v (%T) is not a number", v, v)
	}
	i, err := n.Int64()
	if err != nil {
		t.Fatalf("%v is not an integer", n)
	}
	return int(i)
}

// withoutMeta returns a shallow copy of data without its meta key.
func withoutMeta(data map[string]any) map[string]any {
	out := make(map[string]any, len(data))
	for k, v := range data {
		if k != keyMeta {
			out[k] = v
		}
	}
	return out
}

// checkSuccess verifies every invariant of a success envelope built from
// input with opts, and returns its decoded data. It is the oracle of the
// property and fuzz tests.
func checkSuccess(t testing.TB, env Envelope, input any, opts Options) map[string]any {
	t.Helper()
	raw := env.JSON()
	if !utf8.Valid(raw) {
		t.Fatalf("envelope is not valid UTF-8")
	}
	if !json.Valid(raw) {
		t.Fatalf("envelope is not valid JSON: %s", truncateForLog(raw))
	}
	doc := decodeJSON(t, raw)
	if doc["ok"] != true {
		t.Fatalf("ok = %v: %s", doc["ok"], truncateForLog(raw))
	}
	data, ok := doc["data"].(map[string]any)
	if !ok {
		t.Fatalf("data is not an object")
	}
	meta, ok := data[keyMeta].(map[string]any)
	if !ok {
		t.Fatalf("data.meta is not an object")
	}
	// The oracle's view of the input: encoding/json's bytes, decoded.
	inRaw, err := json.Marshal(input)
	if err != nil {
		t.Fatalf("encode input: %v", err)
	}
	origV, err := stdDecode(inRaw)
	if err != nil {
		t.Fatalf("decode input: %v", err)
	}
	orig, _ := origV.(map[string]any)
	if orig == nil {
		orig = map[string]any{}
	}
	delete(orig, keyMeta)
	o := opts.withDefaults()

	// tokens_estimated is the estimate of exactly these bytes.
	c := bytesCost(raw)
	if got, want := asInt(t, meta[KeyTokensEstimated]), c.tokensEstimated(); got != want {
		t.Errorf("tokens_estimated = %d, want %d", got, want)
	}

	_, nl := orig[keyNodes].([]any)
	_, el := orig[keyEdges].([]any)
	graphShape := nl && el
	unshrinkable := meta[KeyUnshrinkable] == true
	budget := o.BudgetChars
	if graphShape && o.NoBudget {
		budget = o.SubgraphBudgetChars
	}
	switch {
	case o.NoBudget && !graphShape:
		if unshrinkable {
			t.Errorf("envelope_unshrinkable set on the opt-out path")
		}
	case !unshrinkable && c.size() > budget:
		t.Errorf("size %d > budget %d without envelope_unshrinkable", c.size(), budget)
	}

	anyMarker := false
	for k := range meta {
		if strings.HasPrefix(k, "truncated_") {
			anyMarker = true
		}
	}
	if got := meta[KeyTruncated]; got != anyMarker {
		t.Errorf("truncated = %v, but truncated_* markers present = %v", got, anyMarker)
	}

	handled := map[string]bool{keyMeta: true}
	if names, ok := meta[KeyTruncatedStrings].([]any); ok {
		for _, n := range names {
			path := n.(string)
			got, _ := lookupPath(t, data, path).(string)
			if meta[KeyTruncatedSubgraph] == true && (strings.HasPrefix(path, keyNodes+"[") || strings.HasPrefix(path, keyEdges+"[")) {
				// Indices are the answer's, after the subgraph trim.
				if !strings.HasSuffix(got, TruncationMarker) || !utf8.ValidString(got) {
					t.Errorf("string %s = %q is not a shortened string", path, truncateForLog([]byte(got)))
				}
				continue
			}
			was, _ := lookupPath(t, orig, path).(string)
			if utf8.RuneCountInString(was) < ScalarTrimFloorChars {
				t.Errorf("string %s of %d chars was shortened (floor %d)", path, utf8.RuneCountInString(was), ScalarTrimFloorChars)
			}
			prefix, ok := strings.CutSuffix(got, TruncationMarker)
			if !ok || !strings.HasPrefix(was, prefix) || len(prefix) >= len(was) {
				t.Errorf("string %s = %q is not a shortened prefix of the original", path, truncateForLog([]byte(got)))
			}
			if !utf8.ValidString(prefix) {
				t.Errorf("string %s ends in a broken rune", path)
			}
			// Put the original back, so the comparison below sees every
			// other change.
			setPath(t, data, path, was)
		}
	}
	checkPrefixList := func(key string, from, to int, gotList, origList []any) {
		if from != len(origList) {
			t.Errorf("%s: from = %d, original length %d", key, from, len(origList))
		}
		if to != len(gotList) {
			t.Errorf("%s: to = %d, kept %d", key, to, len(gotList))
		}
		if to >= from {
			t.Errorf("%s: to %d >= from %d", key, to, from)
		}
		if to <= len(origList) && !reflect.DeepEqual(gotList, origList[:to]) && to > 0 {
			t.Errorf("%s: kept elements are not the original prefix", key)
		}
	}
	if meta[KeyTruncatedSubgraph] == true {
		handled[keyNodes], handled[keyEdges] = true, true
		gotNodes, _ := data[keyNodes].([]any)
		gotEdges, _ := data[keyEdges].([]any)
		if asInt(t, meta[TruncatedFromKey(keyNodes)]) != len(orig[keyNodes].([]any)) ||
			asInt(t, meta[TruncatedToKey(keyNodes)]) != len(gotNodes) ||
			asInt(t, meta[TruncatedFromKey(keyEdges)]) != len(orig[keyEdges].([]any)) ||
			asInt(t, meta[TruncatedToKey(keyEdges)]) != len(gotEdges) {
			t.Errorf("subgraph markers inconsistent: %v", meta)
		}
		kept := map[string]bool{}
		for _, n := range gotNodes {
			kept[field(n, "uid")] = true
		}
		for _, e := range gotEdges {
			if !kept[field(e, "source", "source_uid", "src_uid")] || !kept[field(e, "target", "target_uid", "dst_uid")] {
				t.Errorf("kept edge %v has an end outside the kept nodes", e)
			}
		}
	}
	for _, key := range TrimmableListKeys {
		if handled[key] {
			continue
		}
		_, hasFrom := meta[TruncatedFromKey(key)]
		_, hasTo := meta[TruncatedToKey(key)]
		if hasFrom != hasTo {
			t.Errorf("%s: only one of from/to present", key)
		}
		if !hasFrom {
			continue
		}
		handled[key] = true
		gotList, _ := data[key].([]any)
		origList, _ := orig[key].([]any)
		checkPrefixList(key, asInt(t, meta[TruncatedFromKey(key)]), asInt(t, meta[TruncatedToKey(key)]), gotList, origList)
	}
	if rec, ok := meta[KeyTruncatedEdgesByType].(map[string]any); ok {
		handled[keyEdgesByType] = true
		gotEBT := data[keyEdgesByType].(map[string]any)
		origEBT := orig[keyEdgesByType].(map[string]any)
		for kind, v := range gotEBT {
			r, cut := rec[kind].(map[string]any)
			gl, _ := v.([]any)
			ol, _ := origEBT[kind].([]any)
			if cut {
				checkPrefixList("edges_by_type."+kind, asInt(t, r["from"]), asInt(t, r["to"]), gl, ol)
			} else if !reflect.DeepEqual(v, origEBT[kind]) {
				t.Errorf("edges_by_type.%s changed without a record", kind)
			}
		}
	}
	for k, v := range orig {
		if handled[k] {
			continue
		}
		if !reflect.DeepEqual(data[k], v) {
			t.Errorf("key %s changed without a marker", k)
		}
	}
	for k := range data {
		if _, ok := orig[k]; !ok && k != keyMeta {
			t.Errorf("key %s appeared", k)
		}
	}
	// data had its shortened strings put back: answer the envelope's own.
	return decodeJSON(t, raw)["data"].(map[string]any)
}

// checkIdempotent trims the trimmed payload again: nothing more may be cut.
func checkIdempotent(t testing.TB, data map[string]any, meta Meta, opts Options) {
	t.Helper()
	if m, _ := data[keyMeta].(map[string]any); m[KeyUnshrinkable] == true {
		return
	}
	payload := withoutMeta(data)
	env := OK(payload, meta, opts)
	again := checkSuccess(t, env, payload, opts)
	if m := again[keyMeta].(map[string]any); m[KeyTruncated] != false {
		t.Errorf("second trim cut again: meta %v", m)
	}
	if !reflect.DeepEqual(withoutMeta(again), payload) {
		t.Errorf("second trim changed the payload")
	}
}

// sortedKeys is for stable test output.
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// pathSteps splits a truncated_string_fields path (a.b[3]["c.d"]) into
// object keys (string) and list indices (int).
func pathSteps(t testing.TB, path string) []any {
	t.Helper()
	var steps []any
	i := 0
	for i < len(path) {
		switch {
		case path[i] == '.':
			i++
		case strings.HasPrefix(path[i:], `["`):
			end := i + 2
			for end < len(path) && !(path[end] == '"' && path[end-1] != '\\') {
				end++
			}
			k, err := strconv.Unquote(path[i+1 : end+1])
			if err != nil {
				t.Fatalf("path %q: %v", path, err)
			}
			steps = append(steps, k)
			i = end + 2
		case path[i] == '[':
			end := strings.IndexByte(path[i:], ']') + i
			n, err := strconv.Atoi(path[i+1 : end])
			if err != nil {
				t.Fatalf("path %q: %v", path, err)
			}
			steps = append(steps, n)
			i = end + 1
		default:
			end := i
			for end < len(path) && path[end] != '.' && path[end] != '[' {
				end++
			}
			steps = append(steps, path[i:end])
			i = end
		}
	}
	return steps
}

// lookupPath returns the value at path in v (nil when absent).
func lookupPath(t testing.TB, v any, path string) any {
	t.Helper()
	for _, s := range pathSteps(t, path) {
		switch k := s.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			l, _ := v.([]any)
			if k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

// setPath sets the value at path in v, which must exist.
func setPath(t testing.TB, v any, path string, to any) {
	t.Helper()
	steps := pathSteps(t, path)
	parent := lookupPath(t, v, "")
	for _, s := range steps[:len(steps)-1] {
		switch k := s.(type) {
		case string:
			parent = parent.(map[string]any)[k]
		case int:
			parent = parent.([]any)[k]
		}
	}
	switch k := steps[len(steps)-1].(type) {
	case string:
		parent.(map[string]any)[k] = to
	case int:
		parent.([]any)[k] = to
	}
}
