package envelope

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// nastyAlphabet feeds generated strings: escapes, quotes, CJK, 4-byte emoji.
var nastyAlphabet = []string{"a", "b", "z", " ", "\"", "\\", "\n", "\t", "\x01", "é", "日", "本", "😀", "🧪", "/", "<", "&"}

func randString(r *rand.Rand, n int) string {
	var b strings.Builder
	for range n {
		b.WriteString(nastyAlphabet[r.IntN(len(nastyAlphabet))])
	}
	return b.String()
}

func randScalar(r *rand.Rand) any {
	switch r.IntN(5) {
	case 0:
		return r.IntN(2) == 0
	case 1:
		return json.Number(fmt.Sprint(r.Int64N(1<<53) - 1<<52))
	case 2:
		return nil
	default:
		return randString(r, r.IntN(40))
	}
}

func randItem(r *rand.Rand) any {
	if r.IntN(3) == 0 {
		return randScalar(r)
	}
	return map[string]any{
		"uid":   randString(r, 1+r.IntN(12)),
		"label": randString(r, r.IntN(60)),
		"score": json.Number(fmt.Sprint(r.IntN(1000))),
	}
}

func randList(r *rand.Rand, n int) []any {
	l := make([]any, n)
	for i := range l {
		l[i] = randItem(r)
	}
	return l
}

// randBody builds a generic body exercising every rung.
func randBody(r *rand.Rand) map[string]any {
	body := map[string]any{
		"scope":  "high",
		"status": randString(r, r.IntN(150)),
		"count":  json.Number(fmt.Sprint(r.IntN(100))),
	}
	for range r.IntN(4) {
		key := TrimmableListKeys[r.IntN(len(TrimmableListKeys))]
		if key == keyNodes || key == keyEdges {
			continue // graph shape has its own test
		}
		body[key] = randList(r, r.IntN(120))
	}
	if r.IntN(2) == 0 {
		ebt := map[string]any{"note": "not a list"}
		for _, k := range []string{"calls", "imports", "contains"}[:1+r.IntN(3)] {
			ebt[k] = randList(r, r.IntN(80))
		}
		body[keyEdgesByType] = ebt
	}
	for range r.IntN(3) {
		body[fmt.Sprintf("text%d", r.IntN(5))] = randString(r, r.IntN(3000))
	}
	if r.IntN(4) == 0 {
		body["nested"] = map[string]any{"deep": randString(r, r.IntN(4000))}
	}
	return body
}

func TestOK_Property(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 1))
	iterations := 300
	if testing.Short() {
		iterations = 50
	}
	for i := range iterations {
		body := randBody(r)
		opts := Options{BudgetChars: 300 + r.IntN(6000)}
		env := OK(body, Meta{Layer: LayerGraph, LogSeq: uint64(i)}, opts)
		data := checkSuccess(t, env, body, opts)
		checkLazySame(t, env, body, Meta{Layer: LayerGraph, LogSeq: uint64(i)}, opts)
		checkIdempotent(t, data, Meta{Layer: LayerGraph, LogSeq: uint64(i)}, opts)
		if t.Failed() {
			t.Fatalf("iteration %d (seed %d) failed", i, seed)
		}
	}
}

// naiveSize is the size the contract defines, written independently of
// cost.go: encode with encoding/json, then max(len, tokens×4) with the
// script-aware estimate.
func naiveSize(t testing.TB, v any) int {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	ascii, other := 0, 0
	for _, r := range string(b) {
		if r < utf8.RuneSelf {
			ascii++
		} else {
			other++
		}
	}
	return max(len(b), 4*(ascii/4+other))
}

// naiveListLadder is step 1 in its literal form: the first key (in order)
// whose emptying alone makes the envelope fit is the only one cut;
// otherwise every key in turn. A key is cut by dropping one element from
// the tail, re-checking the committed envelope (markers included),
// repeating.
func naiveListLadder(t testing.TB, body map[string]any, budget int) map[string]any {
	body = withoutMeta(body)
	meta := map[string]any{KeyLogSeq: 0, KeyTokensEstimated: budget, KeyTruncated: false}
	probe := func() int {
		body[keyMeta] = meta
		return naiveSize(t, map[string]any{"ok": true, "data": body})
	}
	keys := TrimmableListKeys
	if probe() > budget {
		for _, key := range TrimmableListKeys {
			items, ok := body[key].([]any)
			if !ok || len(items) == 0 {
				continue
			}
			body[key] = []any{}
			meta[TruncatedFromKey(key)], meta[TruncatedToKey(key)] = len(items), 0
			alone := probe() <= budget
			body[key] = items
			delete(meta, TruncatedFromKey(key))
			delete(meta, TruncatedToKey(key))
			if alone {
				keys = []string{key}
				break
			}
		}
	}
	for _, key := range keys {
		if probe() <= budget {
			break
		}
		items, ok := body[key].([]any)
		if !ok || len(items) == 0 {
			continue
		}
		meta[TruncatedFromKey(key)] = len(items)
		for k := len(items) - 1; k >= 0; k-- {
			body[key] = items[:k]
			meta[TruncatedToKey(key)] = k
			if probe() <= budget {
				break
			}
		}
	}
	return body
}

// TestOK_ListTrim_MatchesOneAtATime checks the fast list trim against the
// contract's one-element-at-a-time result on bodies without U+2028/9 (which
// encoding/json escapes and we do not).
func TestOK_ListTrim_MatchesOneAtATime(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 2))
	compared := 0
	defer func() {
		if compared < 10 {
			t.Errorf("only %d trimmed bodies compared (seed %d); the test proves little", compared, seed)
		}
	}()
	for i := range 40 {
		body := map[string]any{"scope": "high"}
		for _, key := range []string{"results", "references", "rows"} {
			if r.IntN(3) > 0 {
				body[key] = randList(r, r.IntN(60))
			}
		}
		budget := 300 + r.IntN(2000)
		env := OK(body, Meta{}, Options{BudgetChars: budget})
		got := env.Data()
		want := naiveListLadder(t, decodeJSON(t, appendValue(nil, body)), budget)
		gotMeta, wantMeta := got[keyMeta].(map[string]any), want[keyMeta].(map[string]any)
		if gotMeta[KeyUnshrinkable] == true {
			continue // the naive ladder stops at lists; later rungs differ
		}
		if gotMeta[KeyTruncated] == true {
			compared++
		}
		for _, key := range []string{"results", "references", "rows"} {
			if fmt.Sprint(gotMeta[TruncatedToKey(key)]) != fmt.Sprint(wantMeta[TruncatedToKey(key)]) {
				t.Fatalf("iteration %d (seed %d, budget %d): %s kept %v, one-at-a-time keeps %v",
					i, seed, budget, key, gotMeta[TruncatedToKey(key)], wantMeta[TruncatedToKey(key)])
			}
		}
	}
}

func TestOK_CJK(t *testing.T) {
	body := map[string]any{"text": strings.Repeat("知識", 10_000)} // 20,000 CJK characters
	env := OK(body, Meta{Layer: layerDocs}, Options{NoBudget: true})
	if got := asInt(t, env.Meta()[KeyTokensEstimated]); got < 12_000 {
		t.Errorf("untrimmed tokens_estimated = %d, want >= 12000", got)
	}
	env = OK(body, Meta{Layer: layerDocs}, Options{})
	data := checkSuccess(t, env, body, Options{})
	meta := data[keyMeta].(map[string]any)
	if meta[KeyTruncated] != true || meta[KeyUnshrinkable] == true {
		t.Fatalf("CJK body not trimmed cleanly: %v", meta)
	}
	if got := asInt(t, meta[KeyTokensEstimated]); got > DefaultBudgetChars/4 {
		t.Errorf("trimmed tokens_estimated = %d > %d", got, DefaultBudgetChars/4)
	}
	// Raw length alone would have let ~10,600 CJK chars through (3 bytes
	// each); token-normalised, at most 8,000 survive.
	if n := utf8.RuneCountInString(data["text"].(string)); n > 8_000 {
		t.Errorf("kept %d CJK characters, want <= 8000", n)
	}
}

func TestOK_UnderBudgetUntouched(t *testing.T) {
	body := map[string]any{"results": []any{"a", "b"}, "note": strings.Repeat("x", 500)}
	env := OK(body, Meta{Layer: LayerGraph, LogSeq: 9}, Options{})
	data := checkSuccess(t, env, body, Options{})
	meta := data[keyMeta].(map[string]any)
	if meta[KeyTruncated] != false || meta[KeyLayer] != LayerGraph || asInt(t, meta[KeyLogSeq]) != 9 {
		t.Errorf("meta = %v", meta)
	}
}

func TestOK_StagesInOrder(t *testing.T) {
	list := func(n, width int) []any {
		l := make([]any, n)
		for i := range l {
			l[i] = strings.Repeat("x", width)
		}
		return l
	}
	tests := []struct {
		name    string
		body    map[string]any
		present []string // meta keys that must be set
		absent  []string // meta keys that must not be set
	}{
		{
			name:    "first list key suffices",
			body:    map[string]any{"results": list(100, 50), "rows": list(5, 10)},
			present: []string{"truncated_results_to"},
			absent:  []string{"truncated_rows_to", KeyTruncatedEdgesByType, KeyTruncatedStrings, KeyUnshrinkable},
		},
		{
			name:    "excess in a later list: the earlier one kept whole",
			body:    map[string]any{"results": list(3, 100), "dead": list(100, 50)},
			present: []string{"truncated_dead_to"},
			absent:  []string{"truncated_results_to", KeyTruncatedEdgesByType, KeyTruncatedStrings},
		},
		{
			name:    "no list absorbs it alone: first list emptied, second cut",
			body:    map[string]any{"results": list(30, 100), "dead": list(100, 50)},
			present: []string{"truncated_results_to", "truncated_dead_to"},
			absent:  []string{KeyTruncatedEdgesByType, KeyTruncatedStrings},
		},
		{
			name:    "edges_by_type after lists",
			body:    map[string]any{"edges_by_type": map[string]any{"calls": list(100, 40), "imports": list(10, 40)}},
			present: []string{KeyTruncatedEdgesByType},
			absent:  []string{KeyTruncatedStrings, KeyUnshrinkable},
		},
		{
			name:    "strings last, small scalars kept",
			body:    map[string]any{"summary": strings.Repeat("s", 5000), "scope": "high"},
			present: []string{KeyTruncatedStrings},
			absent:  []string{KeyUnshrinkable},
		},
		{
			name:    "nested strings",
			body:    map[string]any{"nested": map[string]any{"x": strings.Repeat("y", 3000)}, "results": []any{map[string]any{"doc": strings.Repeat("d", 900)}}},
			present: []string{KeyTruncatedStrings},
			absent:  []string{KeyUnshrinkable, "truncated_results_to"},
		},
		{
			name:    "unshrinkable",
			body:    map[string]any{"node": strings.Repeat("n", 5000), "nested": map[string]any{"x": strings.Repeat("y", 3000)}},
			present: []string{KeyUnshrinkable, KeyTruncatedStrings},
		},
	}
	opts := Options{BudgetChars: 1000}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := OK(tt.body, Meta{}, opts)
			data := checkSuccess(t, env, tt.body, opts)
			meta := data[keyMeta].(map[string]any)
			for _, k := range tt.present {
				if _, ok := meta[k]; !ok {
					t.Errorf("meta lacks %s: %v", k, sortedKeys(meta))
				}
			}
			for _, k := range tt.absent {
				if _, ok := meta[k]; ok {
					t.Errorf("meta has %s: %v", k, sortedKeys(meta))
				}
			}
			if data["scope"] != nil && data["scope"] != "high" {
				t.Errorf("small scalar changed: %v", data["scope"])
			}
		})
	}
}

func TestOK_OptOut(t *testing.T) {
	body := map[string]any{
		"results": randList(rand.New(rand.NewPCG(1, 1)), 3000),
		"nested":  map[string]any{"x": strings.Repeat("y", 50_000)},
	}
	env := OK(body, Meta{}, Options{NoBudget: true})
	data := checkSuccess(t, env, body, Options{NoBudget: true})
	meta := data[keyMeta].(map[string]any)
	if meta[KeyTruncated] != false {
		t.Errorf("opt-out trimmed: %v", meta)
	}
	if len(env.JSON()) <= DefaultBudgetChars {
		t.Fatalf("test body too small to mean anything")
	}
	// The same body on the agent path fits: the nested string is cut.
	if m := OK(body, Meta{}, Options{}).Meta(); m[KeyUnshrinkable] == true || fmt.Sprint(m[KeyTruncatedStrings]) != "[nested.x]" {
		t.Errorf("agent path: %v", m)
	}
}

func graphBody(nodes, edges int, r *rand.Rand) map[string]any {
	ns := make([]any, nodes)
	for i := range ns {
		ns[i] = map[string]any{"uid": fmt.Sprintf("code:pkg/f%d.go", i), "kind": "file", "label": randString(r, 20)}
	}
	es := make([]any, edges)
	for j := range es {
		// Skewed ends so degrees differ; a few dangle.
		s := int(float64(nodes) * r.Float64() * r.Float64())
		d := r.IntN(nodes + 5)
		es[j] = map[string]any{"source": fmt.Sprintf("code:pkg/f%d.go", s), "target": fmt.Sprintf("code:pkg/f%d.go", d), "type": "calls"}
	}
	return map[string]any{"nodes": ns, "edges": es, "root": "folder:pkg"}
}

func TestOK_Subgraph(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	body := graphBody(400, 1200, r)
	opts := Options{NoBudget: true, SubgraphBudgetChars: 20_000} // the browser path: the ceiling alone
	env := OK(body, Meta{Layer: LayerGraph}, opts)
	data := checkSuccess(t, env, body, opts)
	meta := data[keyMeta].(map[string]any)
	if meta[KeyTruncatedSubgraph] != true || meta[KeyUnshrinkable] == true {
		t.Fatalf("meta = %v", meta)
	}
	// Kept nodes are exactly the top-K by degree (ties in original order).
	degree := map[string]int{}
	for _, e := range body["edges"].([]any) {
		em := e.(map[string]any)
		degree[em["source"].(string)]++
		degree[em["target"].(string)]++
	}
	kept := map[string]bool{}
	minKept := 1 << 30
	for _, n := range data["nodes"].([]any) {
		uid := n.(map[string]any)["uid"].(string)
		kept[uid] = true
		minKept = min(minKept, degree[uid])
	}
	for _, n := range body["nodes"].([]any) {
		uid := n.(map[string]any)["uid"].(string)
		if !kept[uid] && degree[uid] > minKept {
			t.Errorf("dropped %s (degree %d) but kept a node of degree %d", uid, degree[uid], minKept)
		}
	}
	// Every edge between kept nodes survives.
	want := 0
	for _, e := range body["edges"].([]any) {
		em := e.(map[string]any)
		if kept[em["source"].(string)] && kept[em["target"].(string)] {
			want++
		}
	}
	if got := len(data["edges"].([]any)); got != want {
		t.Errorf("kept %d edges, %d run between kept nodes", got, want)
	}
	// K is maximal: with the next node by degree (and its edges) the
	// envelope, probed independently of cost.go, would not fit.
	k := len(data["nodes"].([]any))
	if k == 0 || k >= 400 {
		t.Fatalf("kept %d nodes", k)
	}
	order := slices.Clone(body["nodes"].([]any))
	slices.SortStableFunc(order, func(a, b any) int {
		return degree[b.(map[string]any)["uid"].(string)] - degree[a.(map[string]any)["uid"].(string)]
	})
	probe := func(k int) int {
		in := map[string]bool{}
		for _, n := range order[:k] {
			in[n.(map[string]any)["uid"].(string)] = true
		}
		var es []any
		for _, e := range body["edges"].([]any) {
			em := e.(map[string]any)
			if in[em["source"].(string)] && in[em["target"].(string)] {
				es = append(es, e)
			}
		}
		m := map[string]any{KeyLogSeq: 0, KeyLayer: LayerGraph, KeyTokensEstimated: opts.SubgraphBudgetChars, KeyTruncated: false,
			KeyTruncatedSubgraph: true, "truncated_nodes_from": 400, "truncated_nodes_to": k, "truncated_edges_from": 1200, "truncated_edges_to": len(es)}
		return naiveSize(t, map[string]any{"ok": true, "data": map[string]any{"nodes": order[:k], "edges": es, "root": body["root"], "meta": m}})
	}
	if got := probe(k); got > opts.SubgraphBudgetChars {
		t.Errorf("K=%d probes at %d > %d", k, got, opts.SubgraphBudgetChars)
	}
	if got := probe(k + 1); got <= opts.SubgraphBudgetChars {
		t.Errorf("K=%d is not maximal: K+1 probes at %d <= %d", k, got, opts.SubgraphBudgetChars)
	}
	// With a budget, graph-shaped bodies answer to it; the browser path
	// (no budget) answers only to the subgraph ceiling.
	small := graphBody(100, 200, r)
	if env := OK(small, Meta{}, Options{BudgetChars: 2000}); env.Meta()[KeyTruncatedSubgraph] != true || len(env.JSON()) > 2000 {
		t.Errorf("graph body over the agent budget: %d bytes, meta %v", len(env.JSON()), env.Meta())
	}
	if m := OK(small, Meta{}, Options{BudgetChars: 500, NoBudget: true}).Meta(); m[KeyTruncated] != false {
		t.Errorf("graph body under the subgraph ceiling was trimmed without a budget: %v", m)
	}
	checkIdempotent(t, data, Meta{Layer: LayerGraph}, opts)
}

func TestOK_NotObject(t *testing.T) {
	tests := []struct {
		name string
		data any
	}{
		{"array", []int{1, 2}},
		{"string", "hello"},
		{"number", 3},
		{"bool", true},
		{"raw array", json.RawMessage(`[1]`)},
		{"unencodable", map[string]any{"c": make(chan int)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := OK(tt.data, Meta{}, Options{})
			if env.OK() || env.Err().Code != CodeInternal || env.Err().Category != CategoryInternal {
				t.Fatalf("got %s", env.JSON())
			}
			if tt.name != "unencodable" && !errors.Is(env.Err(), ErrNotObject) {
				t.Errorf("cause = %v, want ErrNotObject", env.Err().Cause)
			}
			if strings.Contains(string(env.JSON()), "chan") {
				t.Errorf("internal detail leaked: %s", env.JSON())
			}
		})
	}
	for _, data := range []any{nil, map[string]any(nil), struct{}{}} {
		env := OK(data, Meta{}, Options{})
		if !env.OK() || len(env.Data()) != 1 {
			t.Errorf("OK(%#v) = %s, want an empty data object", data, env.JSON())
		}
	}
}

func TestOK_NumbersRoundTrip(t *testing.T) {
	body := json.RawMessage(`{"big":12345678901234567890123,"exact":9007199254740993,"frac":0.1000000000000000055511151231257827,"neg":-0}`)
	env := OK(body, Meta{}, Options{})
	for _, want := range []string{`"big":12345678901234567890123`, `"exact":9007199254740993`, `"frac":0.1000000000000000055511151231257827`, `"neg":-0`} {
		if !strings.Contains(string(env.JSON()), want) {
			t.Errorf("%s not in %s", want, env.JSON())
		}
	}
}

func TestOK_MetaCannotBeSpoofed(t *testing.T) {
	body := map[string]any{"x": 1, "meta": map[string]any{"truncated": true, "tokens_estimated": 1, "truncated_results_to": 3, "layer": "fake"}}
	env := OK(body, Meta{Layer: LayerTasks}, Options{})
	m := env.Meta()
	if m[KeyTruncated] != false || m[KeyLayer] != LayerTasks || m["truncated_results_to"] != nil {
		t.Errorf("meta = %v", m)
	}
}

func TestOK_ToolMeta(t *testing.T) {
	env := OK(nil, Meta{Layer: LayerGraph, LogSeq: 3, Tool: ToolMeta{
		ResolvedFrom: "fuzzy", DefaultKindsPicked: boolPtr(false), FixableCategories: []string{},
		Completeness: "lower_bound", CompletenessReasons: map[string]int{"reflect_calls": 2},
	}}, Options{})
	m := env.Meta()
	want := map[string]any{KeyResolvedFrom: "fuzzy", KeyDefaultKindsPicked: false, KeyFixableCategories: []any{},
		KeyCompleteness: "lower_bound", KeyCompletenessReasons: map[string]any{"reflect_calls": 2}}
	for k, v := range want {
		if !reflect.DeepEqual(m[k], v) {
			t.Errorf("meta[%s] = %#v, want %#v", k, m[k], v)
		}
	}
	for _, k := range []string{KeyNodeKind, KeySemanticScope, KeyInformationalCategories, KeySourceResolvedFrom} {
		if _, ok := m[k]; ok {
			t.Errorf("unset %s emitted", k)
		}
	}
}

func TestOK_InvalidOptions(t *testing.T) {
	env := OK(nil, Meta{}, Options{BudgetChars: -1})
	if env.OK() || env.Err().Code != CodeInternal {
		t.Errorf("got %s", env.JSON())
	}
	if !errors.Is(env.Err(), ErrInvalidOptions) {
		t.Errorf("cause = %v, want ErrInvalidOptions", env.Err().Cause)
	}
	if err := (Options{SubgraphBudgetChars: -5}).Validate(); !errors.Is(err, ErrInvalidOptions) {
		t.Error("Validate accepted a negative budget")
	}
}

// TestOK_GenericFastPath checks that a generic map, which skips the encode
// and decode round trip, yields the same bytes as the round trip, and that
// trimming never modifies the caller's map.
func TestOK_GenericFastPath(t *testing.T) {
	results := []any{}
	for i := range 200 {
		results = append(results, map[string]any{"i": i, "f": float64(i) / 3, "tiny": 1e-9 * float64(i), "huge": 1e22, "n": json.Number("12345678901234567890"), "bad": "x\xffy", "esc": "<&>\u2028"})
	}
	m := map[string]any{"results": results, "neg": int64(-5), "ok": true, "nil": nil, "big": strings.Repeat("日", 300)}
	before := len(results)
	raw, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	for _, opts := range []Options{{}, {BudgetChars: 900}, {NoBudget: true}} {
		fast := OK(m, Meta{LogSeq: 1}, opts)
		slow := OK(json.RawMessage(raw), Meta{LogSeq: 1}, opts)
		if !bytes.Equal(fast.JSON(), slow.JSON()) {
			t.Errorf("opts %+v: fast path differs from round trip:\nfast %s\nslow %s", opts, truncateForLog(fast.JSON()), truncateForLog(slow.JSON()))
		}
	}
	if len(m["results"].([]any)) != before || m["meta"] != nil || m["big"] != strings.Repeat("日", 300) {
		t.Errorf("caller's map modified")
	}
	// Types the encoder does not mirror take the round trip.
	for _, v := range []any{[]string{"a"}, map[string]string{"a": "b"}, struct{ A int }{1}, float32(1.5), json.Number("0x10")} {
		if isGeneric(map[string]any{"v": v}, 0) {
			t.Errorf("%T treated as generic", v)
		}
	}
}

// checkLazySame builds the envelope again from body's encoding/json bytes,
// which takes the lazy-list path, and requires the same bytes as env.
func checkLazySame(t testing.TB, env Envelope, body map[string]any, meta Meta, opts Options) {
	t.Helper()
	raw, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	lazy := OK(json.RawMessage(raw), meta, opts)
	if !bytes.Equal(lazy.JSON(), env.JSON()) {
		t.Errorf("lazy path differs:\nlazy    %s\ngeneric %s", truncateForLog(lazy.JSON()), truncateForLog(env.JSON()))
	}
	for _, v := range lazy.Data() {
		if _, ok := v.(*lazyList); ok {
			t.Errorf("a lazy list escaped into Envelope.Map()")
		}
	}
}

func TestOK_LazyPathShapes(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	bodies := map[string]map[string]any{
		"graph":      graphBody(300, 900, r),
		"edges only": {"edges": randList(r, 400), "scope": "x"},
		"nodes only": {"nodes": randList(r, 400)},
		"empty list": {"results": []any{}, "rows": []any{map[string]any{}}},
		"nested":     {"results": []any{[]any{[]any{"a", map[string]any{"b": []any{1, "]"}}}}, "}", "[", "\\\""}},
	}
	for name, body := range bodies {
		t.Run(name, func(t *testing.T) {
			for _, opts := range []Options{{BudgetChars: 800, SubgraphBudgetChars: 5000}, {}, {NoBudget: true}} {
				env := OK(body, Meta{}, opts)
				checkSuccess(t, env, body, opts)
				checkLazySame(t, env, body, Meta{}, opts)
			}
		})
	}
}
