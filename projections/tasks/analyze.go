package tasks

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cos-dev/cos/internal/roles"
)

// Analysis is the answer of cos_analyze_task: the normalised signals and the
// evidence roles they call for.
type Analysis struct {
	Signals Signals `json:"signals"`
	// Roles are the evidence roles the task calls for, in working order
	// (planner, researcher, implementer, tester, reviewer), each with the
	// rule that called for it.
	Roles []RoleCall `json:"roles"`
}

// RoleCall is one role and why it was called for.
type RoleCall struct {
	Role   string `json:"role"`
	Reason string `json:"reason"`
}

// roleOrder is the working order of the default roles.
var roleOrder = []string{roles.Planner, roles.Researcher, roles.Implementer, roles.Tester, roles.Reviewer}

// actionRoles is rule 1: the roles each action needs.
var actionRoles = map[string][]string{
	"create":   {roles.Implementer, roles.Tester, roles.Reviewer},
	"modify":   {roles.Implementer, roles.Tester, roles.Reviewer},
	"refactor": {roles.Implementer, roles.Tester, roles.Reviewer},
	"debug":    {roles.Researcher, roles.Implementer, roles.Tester},
	"research": {roles.Researcher},
	"review":   {roles.Reviewer},
	"audit":    {roles.Researcher, roles.Reviewer},
	"deploy":   {roles.Implementer, roles.Tester},
	"document": {roles.Implementer, roles.Reviewer},
	"unknown":  {roles.Planner, roles.Researcher},
}

// AnalyzeTask validates and normalises TaskSignals (raw JSON, or a JSON
// string holding it, as ParseSignals takes) for the task titled title, and
// returns them with the evidence roles (evidence's default role ids) they
// call for. title may be empty when the signals carry task_title; a title
// given here wins. Errors are *ArgumentError (errors.Is ErrInvalidArgument).
//
// The rule, applied in this order:
//
//  1. action: create|modify|refactor → implementer, tester, reviewer;
//     debug → researcher, implementer, tester; research → researcher;
//     review → reviewer; audit → researcher, reviewer; deploy →
//     implementer, tester; document → implementer, reviewer; unknown →
//     planner, researcher.
//  2. planner when complexity is COMPLICATED, COMPLEX or CONFUSION, or
//     dimensions ≥ 3, or scope_size is large or recursive.
//  3. researcher when complexity is COMPLEX or CONFUSION, or novelty ≥ 0.7.
//  4. reviewer when scope_size is large or recursive, or urgency is
//     incident.
//  5. CHAOTIC (act first, then sense): no planner; implementer and tester
//     always.
//  6. trivial scope with CLEAR complexity: no planner, and no reviewer
//     unless the action is review or audit.
func AnalyzeTask(title string, signals json.RawMessage) (Analysis, error) {
	s, err := ParseSignals(signals)
	var fields []*FieldError
	if ae, ok := err.(*ArgumentError); ok {
		fields = ae.Fields
	} else if err != nil {
		return Analysis{}, err
	}
	title = strings.TrimSpace(title)
	switch {
	case title == "" && s.TaskTitle == "" && err == nil:
		fields = append(fields, &FieldError{Field: "task_title", Legal: titleLegal(), Hint: "required (as an argument or inside signals_json)", Example: SignalsExample})
	case len([]rune(title)) > MaxTitleLen:
		fields = append(fields, &FieldError{Field: "task_title", Got: clip(mustJSON(title)), Legal: titleLegal(), Example: SignalsExample})
	}
	if err := asError(fields); err != nil {
		return Analysis{}, err
	}
	if title != "" {
		s.TaskTitle = title
	}
	return Analysis{Signals: s, Roles: rolesFor(s)}, nil
}

func rolesFor(s Signals) []RoleCall {
	reasons := map[string]string{}
	add := func(role, reason string) {
		if _, ok := reasons[role]; !ok {
			reasons[role] = reason
		}
	}
	for _, r := range actionRoles[s.Action] {
		add(r, fmt.Sprintf("action %s", s.Action))
	}
	large := s.ScopeSize == "large" || s.ScopeSize == "recursive"
	switch {
	case s.Complexity == "COMPLICATED" || s.Complexity == "COMPLEX" || s.Complexity == "CONFUSION":
		add(roles.Planner, fmt.Sprintf("complexity %s", s.Complexity))
	case s.Dimensions >= 3:
		add(roles.Planner, fmt.Sprintf("%d dimensions", s.Dimensions))
	case large:
		add(roles.Planner, fmt.Sprintf("scope_size %s", s.ScopeSize))
	}
	switch {
	case s.Complexity == "COMPLEX" || s.Complexity == "CONFUSION":
		add(roles.Researcher, fmt.Sprintf("complexity %s", s.Complexity))
	case s.Novelty >= 0.7:
		add(roles.Researcher, fmt.Sprintf("novelty %.2g", s.Novelty))
	}
	switch {
	case large:
		add(roles.Reviewer, fmt.Sprintf("scope_size %s", s.ScopeSize))
	case s.Urgency == "incident":
		add(roles.Reviewer, "urgency incident")
	}
	if s.Complexity == "CHAOTIC" {
		delete(reasons, roles.Planner)
		add(roles.Implementer, "complexity CHAOTIC: act first")
		add(roles.Tester, "complexity CHAOTIC: act first")
	}
	if s.ScopeSize == "trivial" && s.Complexity == "CLEAR" {
		delete(reasons, roles.Planner)
		if s.Action != "review" && s.Action != "audit" {
			delete(reasons, roles.Reviewer)
		}
	}
	out := make([]RoleCall, 0, len(reasons))
	for _, r := range roleOrder {
		if why, ok := reasons[r]; ok {
			out = append(out, RoleCall{Role: r, Reason: why})
		}
	}
	return out
}
