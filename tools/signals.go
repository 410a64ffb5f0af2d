package tools

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/projections/tasks"
)

// signalFields are the TaskSignals fields cos_analyze_task also takes at
// the top level, as tasks.SignalsExample sends them. All are optional (a
// field left out takes its default: tasks.ParseSignals); only task_title is
// required. They are passed raw, so that every wrong form gets the
// domain's message for it.
var signalFields = []string{"dimensions", "domain", "complexity", "scope_size", "action", "urgency", "novelty"}

// signalParams are the schema types and legal values of signalFields (the
// values are not an enum: the domain's synonyms, "big" for large, pass).
var signalParams = map[string]Param{
	"dimensions": {JSONTypes: []string{"integer"}, Description: "independent concerns, ≥ 1"},
	"domain":     {JSONTypes: []string{"array"}, Description: `areas touched: ["auth"]`},
	"complexity": {JSONTypes: []string{"string"}, Description: strings.Join(tasks.Complexities, "|")},
	"scope_size": {JSONTypes: []string{"string"}, Description: strings.Join(tasks.ScopeSizes, "|")},
	"action":     {JSONTypes: []string{"string"}, Description: strings.Join(tasks.Actions, "|")},
	"urgency":    {JSONTypes: []string{"string"}, Description: strings.Join(tasks.Urgencies, "|")},
	"novelty":    {JSONTypes: []string{"number"}, Description: "0 (routine) to 1 (never done)"},
}

func signalTools() []*Tool {
	params := []Param{
		{Name: "task_title", Type: TString, Required: true},
		{Name: "signals_json", Type: TJSON, JSONTypes: []string{"object", "string"}, Description: "the other arguments as one object"},
	}
	for _, f := range signalFields {
		p := signalParams[f]
		p.Name, p.Type = f, TJSON
		params = append(params, p)
	}
	return []*Tool{{
		Name:        "cos_analyze_task",
		Title:       "Analyze task signals",
		Description: "Normalise a task's signals and name the evidence roles they call for.",
		Data:        Fields{"task_title": "string", "signals": typ(tasks.Analysis{}.Signals), "roles": typ(tasks.Analysis{}.Roles)},
		Module:      "tasks", Layer: envelope.LayerTasks, ReadOnly: true, Idempotent: true,
		Example: tasks.SignalsExample,
		Params:  params,
		Handler: analyzeTaskTool,
	}}
}

func analyzeTaskTool(_ context.Context, c *Call) (any, envelope.ToolMeta, error) {
	var tm envelope.ToolMeta
	top := map[string]json.RawMessage{}
	for _, f := range signalFields {
		if c.Args.Has(f) {
			top[f] = c.Args.Raw(f)
		}
	}
	raw := c.Args.Raw("signals_json")
	switch {
	case raw != nil && len(top) > 0:
		names := make([]string, 0, len(top))
		for _, f := range signalFields {
			if _, ok := top[f]; ok {
				names = append(names, f)
			}
		}
		return nil, tm, argError(c.Tool, "signals_json", "signals_json together with top-level "+joinQuoted(names),
			"the signals in one place: signals_json, or top-level fields")
	case raw == nil:
		b, err := json.Marshal(top)
		if err != nil {
			return nil, tm, err
		}
		raw = b
	}
	a, err := tasks.AnalyzeTask(c.Args.Str("task_title"), raw)
	if err != nil {
		return nil, tm, err
	}
	return map[string]any{"task_title": a.Signals.TaskTitle, "signals": a.Signals, "roles": a.Roles}, tm, nil
}
