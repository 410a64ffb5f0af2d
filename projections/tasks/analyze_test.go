package tasks

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/cos-dev/cos/projections/evidence"
)

func TestAnalyzeTask_Roles(t *testing.T) {
	cases := []struct {
		name    string
		signals string
		want    string
	}{
		{"minimal call", SignalsExample, "planner,researcher"},
		{"clear trivial change", `{"dimensions": 1, "domain": ["a"], "complexity": "CLEAR", "scope_size": "trivial", "action": "modify"}`, "implementer,tester"},
		{"complicated create", `{"dimensions": 2, "domain": ["a"], "complexity": "COMPLICATED", "action": "create"}`, "planner,implementer,tester,reviewer"},
		{"complex debug", `{"dimensions": 1, "domain": ["a"], "complexity": "COMPLEX", "action": "debug"}`, "planner,researcher,implementer,tester"},
		{"chaotic incident", `{"dimensions": 4, "domain": ["a"], "complexity": "CHAOTIC", "action": "debug", "urgency": "incident"}`, "researcher,implementer,tester,reviewer"},
		{"novel research", `{"dimensions": 1, "domain": ["a"], "complexity": "CLEAR", "action": "research", "novelty": 0.9}`, "researcher"},
		{"large review", `{"dimensions": 1, "domain": ["a"], "complexity": "CLEAR", "action": "review", "scope_size": "large"}`, "planner,reviewer"},
		{"trivial clear audit keeps reviewer", `{"dimensions": 1, "domain": ["a"], "complexity": "CLEAR", "action": "audit", "scope_size": "trivial"}`, "researcher,reviewer"},
	}
	reg := evidence.DefaultRegistry()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, err := AnalyzeTask("Fix auth bug", json.RawMessage(tc.signals))
			if err != nil {
				t.Fatal(err)
			}
			var roles []string
			for _, r := range a.Roles {
				roles = append(roles, r.Role)
				if r.Reason == "" {
					t.Errorf("role %s without a reason", r.Role)
				}
				if _, ok := reg.Roles[r.Role]; !ok {
					t.Errorf("role %s is not in evidence's default registry", r.Role)
				}
			}
			if got := strings.Join(roles, ","); got != tc.want {
				t.Errorf("roles %s, want %s", got, tc.want)
			}
			if a.Signals.TaskTitle != "Fix auth bug" {
				t.Errorf("title %q", a.Signals.TaskTitle)
			}
		})
	}
}

func TestAnalyzeTask_Invalid(t *testing.T) {
	if _, err := AnalyzeTask("", json.RawMessage(`{"dimensions": 1, "domain": ["a"], "complexity": "CLEAR"}`)); !errors.Is(err, ErrInvalidArgument) || !strings.Contains(err.Error(), "task_title") {
		t.Errorf("no title: %v", err)
	}
	if a, err := AnalyzeTask("", json.RawMessage(SignalsExample)); err != nil || a.Signals.TaskTitle != "Fix auth bug" {
		t.Errorf("title from signals: %+v, %v", a, err)
	}
	_, err := AnalyzeTask(strings.Repeat("x", 300), json.RawMessage(`{"dimensions": ["a"], "domain": ["a"], "complexity": "CLEAR"}`))
	var ae *ArgumentError
	if !errors.As(err, &ae) || len(ae.Fields) != 2 {
		t.Errorf("want dimensions and task_title reported together: %v", err)
	}
}
