package tasks

import (
	"github.com/cos-dev/cos/internal/testutil"

	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestParseCreate_Invalid(t *testing.T) {
	long := strings.Repeat("é", MaxTitleLen+1)
	cases := []struct {
		name  string
		raw   string
		field string
		got   string
		legal string
		hint  string
	}{
		{"title missing", `{"priority": "high"}`, "title", "", "non-empty string of at most 200", "required"},
		{"title blank", `{"title": "   "}`, "title", `"   "`, "non-empty", "blank"},
		{"title too long", `{"title": "` + long + `"}`, "title", "", "at most 200", "201 characters"},
		{"title with a bidi override", `{"title": "fix \u202etxt.exe"}`, "title", "", "without control or bidi", "U+202E"},
		{"title with an isolate", `{"title": "a\u2067b"}`, "title", "", "without control or bidi", "U+2067"},
		{"title with a newline", `{"title": "a\nb"}`, "title", "", "without control or bidi", "U+000A"},
		{"title with a C1 control", `{"title": "a\u0085b"}`, "title", "", "without control or bidi", "U+0085"},
		{"title with a left-to-right mark", `{"title": "a\u200eb"}`, "title", "", "without control or bidi", "U+200E"},
		{"title a number", `{"title": 5}`, "title", `5`, "string", "must be a string"},
		{"priority unknown", `{"title": "t", "priority": "urgent"}`, "priority", `"urgent"`, `"low", "medium", "high", "critical"`, `did you mean "critical"`},
		{"priority uppercase", `{"title": "t", "priority": "HIGH"}`, "priority", `"HIGH"`, `"high"`, `did you mean "high"`},
		{"status unknown", `{"title": "t", "status": "wip"}`, "status", `"wip"`, `"todo", "in_progress", "blocked", "review", "done", "cancelled"`, `"in_progress"`},
		{"labels a string", `{"title": "t", "labels": "auth"}`, "labels", `"auth"`, "list of at most 32", `["auth"]`},
		{"labels with blank", `{"title": "t", "labels": ["a", " "]}`, "labels", `["a"," "]`, "non-empty strings", "not legal"},
		{"depends_on bad id", `{"title": "t", "depends_on": ["7"]}`, "depends_on", `["7"]`, "task ids", `"7"`},
		{"depends_on a string", `{"title": "t", "depends_on": "TASK-001"}`, "depends_on", `"TASK-001"`, "task ids", `["TASK-001"]`},
		{"parent bad", `{"title": "t", "parent": "task-1"}`, "parent", `"task-1"`, "task id", ""},
		{"unknown key", `{"title": "t", "prio": "high"}`, "prio", `"high"`, "accepted keys: title, description", `did you mean "priority"`},
		{"request_id is the tool's", `{"title": "t", "request_id": "r1"}`, "request_id", `"r1"`, "accepted keys", "Unknown argument"},
		{"signals wrong form", `{"title": "t", "signals": {"dimensions": 1, "domain": "meta", "complexity": "CLEAR"}}`, "signals.domain", `"meta"`, "list of strings", `["meta"]`},
		{"not an object", `["t"]`, "arguments", `["t"]`, "JSON object", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseCreate(json.RawMessage(tc.raw))
			fe := onlyField(t, err)
			if fe.Field != tc.field || (tc.got != "" && fe.Got != tc.got) || !strings.Contains(fe.Legal, tc.legal) || !strings.Contains(fe.Hint, tc.hint) {
				t.Errorf("got %+v\nwant field %s got %s legal ~%s hint ~%s", fe, tc.field, tc.got, tc.legal, tc.hint)
			}
			if fe.Example == "" || !strings.Contains(err.Error(), fe.Example) {
				t.Errorf("message %q lacks a corrected example", err.Error())
			}
		})
	}
}

func TestParseCreate_ReportsEveryField(t *testing.T) {
	_, err := ParseCreate(json.RawMessage(`{"priority": "x", "status": "y", "labels": 3, "bogus": 1}`))
	var ae *ArgumentError
	if !errors.As(err, &ae) {
		t.Fatal(err)
	}
	var fields []string
	for _, f := range ae.Fields {
		fields = append(fields, f.Field)
	}
	slices.Sort(fields)
	if want := []string{"bogus", "labels", "priority", "status", "title"}; !slices.Equal(fields, want) {
		t.Errorf("fields %v, want %v", fields, want)
	}
}

func TestParseCreate_Valid(t *testing.T) {
	c, err := ParseCreate(json.RawMessage(`{"title": " Fix login ", "labels": "[\"auth\", \"auth\", \"web\"]", "depends_on": ["TASK-001"],
		"parent": "TASK-002", "signals": ` + mustString(SignalsExample) + `}`))
	if err != nil {
		t.Fatal(err)
	}
	if c.Title != "Fix login" || c.Priority != DefaultPriority || c.Status != DefaultStatus || !slices.Equal(c.Labels, []string{"auth", "web"}) ||
		c.Parent != "TASK-002" || c.Signals == nil || c.Signals.Complexity != "COMPLICATED" {
		t.Errorf("got %+v", c)
	}
}

func TestParsePatch(t *testing.T) {
	p, err := ParsePatch(json.RawMessage(`{"status": "done", "signals": null, "parent": null, "labels": []}`))
	if err != nil {
		t.Fatal(err)
	}
	if *p.Status != StatusDone || !p.ClearSignals || p.Parent == nil || *p.Parent != "" || p.Labels == nil || len(*p.Labels) != 0 || p.Title != nil || p.Priority != nil {
		t.Errorf("got %+v", p)
	}
	p, err = ParsePatch(json.RawMessage(`{"description": "", "priority": "low"}`))
	if err != nil || p.Description == nil || *p.Description != "" || *p.Priority != PriorityLow || p.isEmpty() {
		t.Errorf("got %+v, %v", p, err)
	}
	for _, raw := range []string{`{}`, `[]`, `{"assignee": "a"}`, `{"title": ""}`, `{"signals": {"dimensions": 0, "domain": [], "complexity": "CLEAR"}}`} {
		if _, err := ParsePatch(json.RawMessage(raw)); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("ParsePatch(%s) = %v, want ErrInvalidArgument", raw, err)
		}
	}
	_, err = ParsePatch(json.RawMessage(`{"title": ""}`))
	if fe := onlyField(t, err); fe.Field != "patch.title" {
		t.Errorf("field %q, want patch.title", fe.Field)
	}
	_, err = ParsePatch(json.RawMessage(`{"title": "admin\u202e"}`))
	if fe := onlyField(t, err); fe.Field != "patch.title" || !strings.Contains(fe.Hint, "U+202E") {
		t.Errorf("got %+v, want patch.title naming U+202E", fe)
	}
}

func TestValidateAssigneeAndTaskID(t *testing.T) {
	for _, a := range []string{"", " a", "a\n", strings.Repeat("x", MaxAssigneeLen+1)} {
		if err := ValidateAssignee(a); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("ValidateAssignee(%q) = %v", a, err)
		}
	}
	if err := ValidateAssignee("agent-7"); err != nil {
		t.Error(err)
	}
	for id, ok := range map[string]bool{"TASK-001": true, "TASK-1234": true, "TASK-01": false, "task-001": false, "TASK-00a": false, "TASK-99999999999999999999": false} {
		if got := ValidateTaskID("task_id", id) == nil; got != ok {
			t.Errorf("ValidateTaskID(%q) ok = %v, want %v", id, got, ok)
		}
	}
}

func TestParsePatch_UnknownKeyNamed(t *testing.T) {
	_, err := ParsePatch(json.RawMessage(`{"assignee": "a"}`))
	if fe := onlyField(t, err); fe.Field != "assignee" || !strings.Contains(fe.Legal, "accepted keys") {
		t.Errorf("got %+v", fe)
	}
}

func FuzzParseCreateAndPatch(f *testing.F) {
	f.Add([]byte(CreateExample))
	f.Add([]byte(PatchExample))
	f.Add([]byte(`{"title": "t", "labels": "[\"a\"]", "signals": null, "parent": null, "depends_on": "TASK-001"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseCreate(data)
		if err != nil && !errors.Is(err, ErrInvalidArgument) {
			t.Fatalf("create error %v is not ErrInvalidArgument", err)
		}
		if err == nil {
			if verr := c.validate(); verr != nil {
				t.Fatalf("ParseCreate accepted what the reducer refuses: %v", verr)
			}
		}
		p, err := ParsePatch(data)
		if err != nil && !errors.Is(err, ErrInvalidArgument) {
			t.Fatalf("patch error %v is not ErrInvalidArgument", err)
		}
		if err == nil {
			if p.isEmpty() {
				t.Fatal("ParsePatch accepted an empty patch")
			}
			e := &entry{Task: Task{ID: "TASK-001", Title: "t", Priority: DefaultPriority, Status: DefaultStatus}}
			if aerr := e.applyPatch(p); aerr != nil {
				t.Fatalf("ParsePatch accepted what the reducer refuses: %v", aerr)
			}
		}
	})
}

// TestHiddenRunes_RefusedInNamesAndQuotedEscaped: a new label, touch or
// holder name may not hold a control or bidi character either, and the
// error that quotes a refused value writes those characters escaped, so
// the message itself cannot be reordered by them.
func TestHiddenRunes_RefusedInNamesAndQuotedEscaped(t *testing.T) {
	for _, c := range []struct{ name, raw, field string }{
		{"label", `{"title": "t", "labels": ["lab\u202eel"]}`, "labels"},
		{"label with a NUL", `{"title": "t", "labels": ["a\u0000b"]}`, "labels"},
		{"touch", `{"title": "t", "touches": ["a\u2066b.go"]}`, "touches"},
		{"title", `{"title": "Bad \u202e title"}`, "title"},
	} {
		_, err := ParseCreate(json.RawMessage(c.raw))
		fe := onlyField(t, err)
		if fe.Field != c.field {
			t.Errorf("%s: field %q, want %q", c.name, fe.Field, c.field)
		}
		msg := err.Error()
		if _, r, bad := HiddenRune(msg); bad {
			t.Errorf("%s: the message holds U+%04X raw: %q", c.name, r, msg)
		}
		if !strings.Contains(msg, `\u`) {
			t.Errorf("%s: the message does not show the character escaped: %s", c.name, msg)
		}
	}
	// Invisible characters: refused in titles (the joiners stay: emoji),
	// and every format character in a name.
	for _, raw := range []string{`{"title": "a\u200bb"}`, `{"title": "a\ufeffb"}`, `{"title": "a\u2028b"}`,
		`{"title": "t", "labels": ["bob\u200d"]}`, `{"title": "t", "touches": ["a\u2060.go"]}`} {
		if _, err := ParseCreate(json.RawMessage(raw)); err == nil {
			t.Errorf("%s was accepted", raw)
		}
	}
	if _, err := ParseCreate(json.RawMessage(`{"title": "ship \ud83d\udc68\u200d\ud83d\udcbb"}`)); err != nil {
		t.Errorf("a title with an emoji joined by U+200D: %v", err)
	}
	if _, err := ParsePatch(json.RawMessage(`{"labels": ["l\u2066x"]}`)); err == nil {
		t.Error("a patch's label with U+2066 was accepted")
	}
	l := new(testutil.FakeLog)
	b := NewBoard()
	apply(t, b, create(t, l, Created{Title: "one"}))
	if _, _, err := b.ClaimCheck("TASK-001", "mal\u202elory"); err == nil || !strings.Contains(err.Error(), "U+202E") {
		t.Errorf("claim as a name with U+202E: %v, want refused naming U+202E", err)
	}
	if _, _, err := b.ClaimCheck("TASK-001", "bob\u200b"); err == nil {
		t.Error("claim as bob followed by a zero-width space was accepted")
	}
	if _, err := b.CheckUpdate(UpdateCheck{ID: "TASK-001", Actor: "eve\u202e"}); err == nil || !strings.Contains(err.Error(), "U+202E") {
		t.Errorf("update as a name with U+202E: %v, want refused naming U+202E", err)
	}
	if _, _, err := b.ClaimCheck("TASK-001", "mallory"); err != nil {
		t.Errorf("claim as a plain name: %v", err)
	}
}
