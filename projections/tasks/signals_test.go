package tasks

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// TestParseSignals_WrongForms feeds every "common wrong form" of the
// TaskSignals table (docs/uids.md) and checks the one message names the
// field, what arrived, the legal values and the corrected minimal example.
func TestParseSignals_WrongForms(t *testing.T) {
	base := map[string]any{"task_title": "Fix auth bug", "dimensions": 2, "complexity": "COMPLICATED", "domain": []string{"meta"}}
	cases := []struct {
		name      string
		field     string
		value     any
		got       string
		legal     []string // substrings of Legal
		hint      string   // substring of Hint
		wantField string
	}{
		{"dimensions as a list", "dimensions", []string{"mcp-tooling", "workflow"}, `["mcp-tooling","workflow"]`, []string{"integer ≥ 1"}, `"dimensions": 2`, "dimensions"},
		{"domain as a string", "domain", "meta", `"meta"`, []string{"list of strings", `["meta"]`}, `["meta"]`, "domain"},
		{"lowercase complexity", "complexity", "complex", `"complex"`, []string{`"CLEAR"`, `"COMPLICATED"`, `"COMPLEX"`, `"CHAOTIC"`, `"CONFUSION"`}, `did you mean "COMPLEX"`, "complexity"},
		{"scope big", "scope_size", "big", `"big"`, []string{`"trivial"`, `"small"`, `"medium"`, `"large"`, `"recursive"`}, `did you mean "large"`, "scope_size"},
		{"action analyze", "action", "analyze", `"analyze"`, []string{`"create"`, `"modify"`, `"debug"`, `"research"`, `"review"`, `"deploy"`, `"refactor"`, `"document"`, `"audit"`, `"unknown"`}, `did you mean "research"`, "action"},
		{"urgency high", "urgency", "high", `"high"`, []string{`"normal"`, `"elevated"`, `"incident"`}, `did you mean "elevated"`, "urgency"},
		{"novelty high", "novelty", "high", `"high"`, []string{"0.0", "1.0"}, "0.8", "novelty"},
		{"novelty out of range", "novelty", 1.5, `1.5`, []string{"0.0", "1.0"}, "out of range", "novelty"},
		{"dimensions zero", "dimensions", 0, `0`, []string{"integer ≥ 1"}, "at least 1", "dimensions"},
		{"dimensions fraction", "dimensions", 1.5, `1.5`, []string{"integer ≥ 1"}, "whole number", "dimensions"},
		{"dimensions quoted", "dimensions", "2", `"2"`, []string{"integer ≥ 1"}, "without quotes", "dimensions"},
		{"domain with a number", "domain", []any{"meta", 3}, `["meta",3]`, []string{"list of strings"}, "string", "domain"},
		{"title not a string", "task_title", 7, `7`, []string{"non-empty string"}, "", "task_title"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := map[string]any{}
			for k, v := range base {
				in[k] = v
			}
			in[tc.field] = tc.value
			raw, _ := json.Marshal(in)
			_, err := ParseSignals(raw)
			fe := onlyField(t, err)
			if fe.Field != tc.wantField {
				t.Errorf("Field = %q, want %q", fe.Field, tc.wantField)
			}
			if fe.Got != tc.got {
				t.Errorf("Got = %q, want %q", fe.Got, tc.got)
			}
			for _, l := range tc.legal {
				if !strings.Contains(fe.Legal, l) {
					t.Errorf("Legal %q lacks %q", fe.Legal, l)
				}
			}
			if !strings.Contains(fe.Hint, tc.hint) {
				t.Errorf("Hint %q lacks %q", fe.Hint, tc.hint)
			}
			if fe.Example != SignalsExample {
				t.Errorf("Example = %q, want SignalsExample", fe.Example)
			}
			msg := err.Error()
			for _, part := range append([]string{tc.wantField, tc.got, SignalsExample}, tc.legal...) {
				if !strings.Contains(msg, part) {
					t.Errorf("message %q lacks %q", msg, part)
				}
			}
			if _, err := ParseSignals(mustMarshal(t, map[string]any{"task_title": "x", "dimensions": 1, "complexity": "CLEAR", "domain": []string{"a"}})); err != nil {
				t.Fatalf("control case failed: %v", err)
			}
		})
	}
}

func TestParseSignals_AllProblemsAtOnce(t *testing.T) {
	raw := json.RawMessage(`{"dimensions": ["mcp-tooling", "workflow"], "domain": "meta", "complexity": "complex",
		"scope_size": "big", "action": "analyze", "urgency": "high", "novelty": "high", "scope": 1}`)
	_, err := ParseSignals(raw)
	var ae *ArgumentError
	if !errors.As(err, &ae) {
		t.Fatalf("err = %v, want *ArgumentError", err)
	}
	var fields []string
	for _, f := range ae.Fields {
		fields = append(fields, f.Field)
	}
	want := []string{"dimensions", "domain", "complexity", "scope_size", "action", "urgency", "novelty", "scope"}
	if strings.Join(fields, ",") != strings.Join(want, ",") {
		t.Errorf("fields = %v, want %v", fields, want)
	}
	if msg := err.Error(); !strings.HasPrefix(msg, "8 invalid arguments") || strings.Count(msg, SignalsExample) != 1 {
		t.Errorf("message = %q, want 8 problems and the example once", msg)
	}
}

func TestParseSignals_UnknownKey(t *testing.T) {
	_, err := ParseSignals(json.RawMessage(`{"dimensions": 1, "domain": ["a"], "complexity": "CLEAR", "scope": "big"}`))
	fe := onlyField(t, err)
	if fe.Field != "scope" || !strings.Contains(fe.Hint, `did you mean "scope_size"`) {
		t.Errorf("got %+v", fe)
	}
	for _, k := range signalKeys {
		if !strings.Contains(fe.Legal, k) {
			t.Errorf("Legal %q does not name accepted key %q", fe.Legal, k)
		}
	}
}

// dimensions, domain and complexity left out take their defaults (they
// were required, while cos_analyze_task's schema marked nothing required).
func TestParseSignals_Missing(t *testing.T) {
	s, err := ParseSignals(json.RawMessage(`{"task_title": "x"}`))
	if err != nil {
		t.Fatalf("err = %v, want the defaults", err)
	}
	if s.Dimensions != DefaultDimensions || s.Complexity != DefaultComplexity || s.Domain == nil || len(s.Domain) != 0 {
		t.Errorf("signals = %+v, want dimensions %d, complexity %s, domain []", s, DefaultDimensions, DefaultComplexity)
	}
}

func TestParseSignals_NotAnObject(t *testing.T) {
	for _, raw := range []string{``, `[]`, `42`, `"not json"`, `{"dimensions": `, `null`} {
		t.Run(raw, func(t *testing.T) {
			_, err := ParseSignals(json.RawMessage(raw))
			fe := onlyField(t, err)
			if fe.Field != "signals_json" || fe.Example != SignalsExample {
				t.Errorf("got %+v", fe)
			}
		})
	}
}

func TestParseSignals_Valid(t *testing.T) {
	cases := []struct {
		name string
		raw  string
		want Signals
	}{
		{"minimal call", SignalsExample, Signals{TaskTitle: "Fix auth bug", Dimensions: 2, Complexity: "COMPLICATED", Domain: []string{"meta"},
			ScopeSize: DefaultScopeSize, Action: DefaultAction, Urgency: DefaultUrgency, Novelty: DefaultNovelty}},
		{"string holding JSON", mustString(SignalsExample), Signals{TaskTitle: "Fix auth bug", Dimensions: 2, Complexity: "COMPLICATED", Domain: []string{"meta"},
			ScopeSize: DefaultScopeSize, Action: DefaultAction, Urgency: DefaultUrgency, Novelty: DefaultNovelty}},
		{"domain list sent as a JSON string", `{"dimensions": 1, "domain": "[\"django\", \"meta\", \"meta\"]", "complexity": "CLEAR"}`,
			Signals{Dimensions: 1, Complexity: "CLEAR", Domain: []string{"django", "meta"}, ScopeSize: DefaultScopeSize, Action: DefaultAction, Urgency: DefaultUrgency, Novelty: DefaultNovelty}},
		{"every field", `{"task_title": " t ", "dimensions": 3.0, "domain": [" a "], "complexity": "CHAOTIC", "scope_size": "recursive", "action": "deploy", "urgency": "incident", "novelty": 0}`,
			Signals{TaskTitle: "t", Dimensions: 3, Complexity: "CHAOTIC", Domain: []string{"a"}, ScopeSize: "recursive", Action: "deploy", Urgency: "incident", Novelty: 0}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseSignals(json.RawMessage(tc.raw))
			if err != nil {
				t.Fatal(err)
			}
			if g, w := mustMarshal(t, got), mustMarshal(t, tc.want); string(g) != string(w) {
				t.Errorf("got %s, want %s", g, w)
			}
			if err := got.validate(); err != nil {
				t.Errorf("normalised signals do not validate: %v", err)
			}
		})
	}
}

func FuzzParseSignals(f *testing.F) {
	f.Add([]byte(SignalsExample))
	f.Add([]byte(`{"dimensions": ["a"], "domain": "meta", "complexity": "complex", "novelty": "high"}`))
	f.Add([]byte(`"{\"dimensions\": 1}"`))
	f.Add([]byte(`{"domain": "[\"a\"]", "dimensions": 1e3, "complexity": "CLEAR", "urgency": "p0"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseSignals(data)
		if err != nil {
			if !errors.Is(err, ErrInvalidArgument) {
				t.Fatalf("error %v is not ErrInvalidArgument", err)
			}
			return
		}
		// A normalised value parses back to itself.
		again, err := ParseSignals(mustMarshal(t, s))
		if err != nil {
			t.Fatalf("normalised %+v does not parse: %v", s, err)
		}
		if a, b := mustMarshal(t, s), mustMarshal(t, again); string(a) != string(b) {
			t.Fatalf("not idempotent: %s vs %s", a, b)
		}
	})
}

// onlyField asserts err is an *ArgumentError with exactly one field.
func onlyField(t testing.TB, err error) *FieldError {
	t.Helper()
	var ae *ArgumentError
	if !errors.As(err, &ae) {
		t.Fatalf("err = %v, want *ArgumentError", err)
	}
	if !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("err is not ErrInvalidArgument")
	}
	if len(ae.Fields) != 1 {
		t.Fatalf("%d fields, want 1: %v", len(ae.Fields), err)
	}
	return ae.Fields[0]
}

func mustMarshal(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
