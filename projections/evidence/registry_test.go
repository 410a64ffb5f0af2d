package evidence

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cos-dev/cos/eventlog"
)

func TestValidateSession(t *testing.T) {
	ok := []string{"s", "sess-2026-11-30a", "A.b_c-9", strings.Repeat("x", MaxSessionLen)}
	bad := []string{"", ".hidden", "..", "a/b", `a\b`, "a b", "a:b", "é", strings.Repeat("x", MaxSessionLen+1), "a\x00"}
	for _, s := range ok {
		if err := ValidateSession(s); err != nil {
			t.Errorf("ValidateSession(%q) = %v", s, err)
		}
	}
	for _, s := range bad {
		err := ValidateSession(s)
		if !errors.Is(err, ErrInvalidSession) || !strings.Contains(err.Error(), "legal: 1–128") {
			t.Errorf("ValidateSession(%q) = %v, want ErrInvalidSession naming the rule", s, err)
		}
	}
}

func TestDefaultRegistry_Valid(t *testing.T) {
	r := DefaultRegistry()
	if err := r.Validate(); err != nil {
		t.Fatal(err)
	}
	for role, class := range r.Roles {
		ex := r.Classes[class].Example
		if _, _, err := r.Prepare("s1", KindOutput, role, ex); err != nil {
			t.Errorf("role %s: its own example fails: %v", role, err)
		}
	}
	for _, k := range []string{KindBacktrack, KindDiscovery, KindDegradedFormula} {
		if _, _, err := r.Prepare("s1", k, "", r.Classes[k].Example); err != nil {
			t.Errorf("kind %s: its own example fails: %v", k, err)
		}
	}
}

func TestLoadRegistry(t *testing.T) {
	cases := []struct {
		name    string
		file    string
		wantErr bool
		check   func(t *testing.T, r *Registry)
	}{
		{"no file", "", false, func(t *testing.T, r *Registry) {
			if len(r.Roles) != 5 {
				t.Errorf("roles %v", r.RoleIDs())
			}
		}},
		{"override and add", `{"output_classes": {"audit_report": {"fields": {"summary": {"type": "string", "required": true}}}},
			"roles": {"security": "audit_report", "planner": "findings"}}`, false, func(t *testing.T, r *Registry) {
			if r.Roles["security"] != "audit_report" || r.Roles["planner"] != "findings" || r.Roles["tester"] != "test_report" {
				t.Errorf("roles %v", r.Roles)
			}
			_, _, err := r.Prepare("s", "", "security", json.RawMessage(`{}`))
			var oe *OutputError
			if !errors.As(err, &oe) || !strings.Contains(oe.Example, `"summary":"…"`) {
				t.Errorf("generated example: %v", err)
			}
		}},
		{"malformed", `{"roles": `, true, nil},
		{"unknown top-level key", `{"role": {}}`, true, nil},
		{"role names a missing class", `{"roles": {"x": "nope"}}`, true, nil},
		{"bad field type", `{"output_classes": {"c": {"fields": {"f": {"type": "date"}}}}}`, true, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.file != "" {
				if err := os.WriteFile(filepath.Join(dir, RolesFile), []byte(tc.file), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			r, err := LoadRegistry(dir)
			if tc.wantErr {
				if !errors.Is(err, ErrRegistry) {
					t.Fatalf("err = %v, want ErrRegistry", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, r)
		})
	}
}

func TestRegistry_Prepare_Invalid(t *testing.T) {
	r := DefaultRegistry()
	cases := []struct {
		name     string
		session  string
		kind     string
		role     string
		output   string
		want     error
		problems []string // "field|substring of the rendered problem"
	}{
		{"bad session", "../x", "", "planner", `{}`, ErrInvalidSession, nil},
		{"unknown role", "s", "", "poet", `{}`, ErrUnknownRole, nil},
		{"unknown kind", "s", "diary", "", `{}`, ErrUnknownKind, nil},
		{"role on a non-output kind", "s", KindBacktrack, "planner", `{"reason": "x"}`, ErrUnknownKind, nil},
		{"not an object", "s", "", "planner", `["a"]`, ErrInvalidOutput, []string{"output|a JSON object with fields"}},
		{"missing required", "s", "", "planner", `{"summary": "s"}`, ErrInvalidOutput, []string{"output.steps|missing; legal: a list of at least 1 non-empty strings; required"}},
		{"string for a list", "s", "", "implementer", `{"summary": "s", "files": "a.go"}`, ErrInvalidOutput, []string{`output.files|got "a.go"; legal: a list of at least 1 non-empty strings; a single value still goes in a list: ["a.go"]`}},
		{"enum", "s", "", "reviewer", `{"verdict": "lgtm", "findings": []}`, ErrInvalidOutput, []string{"output.verdict|one of approve, request_changes, comment"}},
		{"negative count", "s", "", "tester", `{"passed": -1, "failed": 0.5}`, ErrInvalidOutput, []string{"output.failed|got 0.5; legal: a whole number ≥ 0", "output.passed|got -1; legal: a whole number ≥ 0"}},
		{"unknown field", "s", "", "researcher", `{"question": "q", "findings": ["f"], "confidence": 0.9}`, ErrInvalidOutput, []string{"output.confidence|accepted fields: findings, notes, question, sources"}},
		{"blank string", "s", KindDiscovery, "", `{"summary": " "}`, ErrInvalidOutput, []string{"output.summary|blank"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := r.Prepare(tc.session, tc.kind, tc.role, json.RawMessage(tc.output))
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if tc.want == ErrUnknownRole && !strings.Contains(err.Error(), "planner, researcher, reviewer, tester") {
				t.Errorf("unknown role message %q does not list the roles", err)
			}
			var oe *OutputError
			if tc.problems == nil {
				return
			}
			if !errors.As(err, &oe) || len(oe.Problems) != len(tc.problems) || oe.Example == "" {
				t.Fatalf("err = %#v, want %d problems and an example", err, len(tc.problems))
			}
			for i, want := range tc.problems {
				field, sub, _ := strings.Cut(want, "|")
				if oe.Problems[i].Field != field || !strings.Contains(oe.Problems[i].String(), sub) {
					t.Errorf("problem %d = %q, want %s ~ %q", i, oe.Problems[i].String(), field, sub)
				}
			}
			if !strings.Contains(err.Error(), "corrected example: "+oe.Example) {
				t.Errorf("message %q lacks the example", err)
			}
		})
	}
}

func TestRegistry_Prepare_Canonical(t *testing.T) {
	r := DefaultRegistry()
	stream, p, err := r.Prepare("s1", "", "tester", json.RawMessage(`"{\"failed\": 0, \"passed\": 3, \"command\": \"go test\"}"`))
	if err != nil {
		t.Fatal(err)
	}
	if stream != "evidence:s1" || p.Type != TypeOutputRecorded {
		t.Errorf("stream %s type %s", stream, p.Type)
	}
	if want := `{"role":"tester","output":{"command":"go test","failed":0,"passed":3}}`; string(p.Data) != want {
		t.Errorf("data %s, want %s", p.Data, want)
	}
}

func FuzzPrepare(f *testing.F) {
	r := DefaultRegistry()
	f.Add("s", "", "planner", []byte(`{"summary": "x", "steps": ["a"]}`))
	f.Add("s", "backtrack", "", []byte(`"{\"reason\": \"r\"}"`))
	f.Add("../s", "diary", "poet", []byte(`[1, 2`))
	f.Fuzz(func(t *testing.T, session, kind, role string, output []byte) {
		stream, p, err := r.Prepare(session, kind, role, output)
		if err != nil {
			return
		}
		// What Prepare accepts, the reducer folds.
		b := NewBundles()
		if err := b.Apply(eventlog.Event{Seq: 1, Revision: 1, Stream: stream, Type: p.Type, Data: p.Data}); err != nil {
			t.Fatalf("Prepare accepted what Apply refuses: %v", err)
		}
		if got, err := b.Get(session); err != nil || got.Count() != 1 {
			t.Fatalf("bundle %+v, %v", got, err)
		}
	})
}

// The refusal names the character as written and its byte offset, not the
// first byte of its UTF-8 encoding read as a Latin-1 character.
func TestValidateSession_NamesTheRune(t *testing.T) {
	for s, want := range map[string]string{
		"sitzung-ü":  `"ü" at byte offset 8`,
		"a b":        `" " at byte offset 1`,
		"ok-\xff-no": `"\xff" at byte offset 3`,
	} {
		err := ValidateSession(s)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ValidateSession(%q) = %v, want it to say %s", s, err, want)
		}
	}
}
