package tools

import (
	"context"
	"encoding/json"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/projections/tasks"
)

// signalFields are the TaskSignals fields cos_analyze_task also takes at
// the top level, as the minimal valid call (tasks.SignalsExample) sends
// them ({"task_title", "dimensions", "complexity", "domain"}). They are passed
// raw, so that every wrong form gets the domain's message for it.
var signalFields = []string{"dimensions", "domain", "complexity", "scope_size", "action", "urgency", "novelty"}

func signalTools() []*Tool {
	params := []Param{
		{Name: "task_title", Type: TString, Description: "the task's title (1–200 characters); may instead ride inside signals_json"},
		{Name: "signals_json", Type: TJSON, Description: "TaskSignals as a JSON object or a JSON string holding one: " + tasks.SignalsExample},
	}
	for _, f := range signalFields {
		params = append(params, Param{Name: f, Type: TJSON, Description: "TaskSignals." + f + " given at the top level (instead of signals_json)"})
	}
	return []*Tool{{
		Name: "cos_analyze_task",
		Description: "Validate and normalise TaskSignals (dimensions int ≥ 1, domain list of strings, complexity " +
			"CLEAR|COMPLICATED|COMPLEX|CHAOTIC|CONFUSION, scope_size trivial|small|medium|large|recursive, action " +
			"create|modify|debug|research|review|deploy|refactor|document|audit|unknown, urgency normal|elevated|incident, " +
			"novelty 0.0–1.0) and answer them with the evidence roles they call for. Send the signals in signals_json or " +
			"as top-level arguments, not both. Every wrong field is named with what arrived, the legal values and a " +
			"corrected example.",
		Module: "tasks", Layer: envelope.LayerTasks, ReadOnly: true, Idempotent: true,
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
	case raw == nil && len(top) == 0:
		return nil, tm, argError(c.Tool, "signals_json", "nothing",
			"TaskSignals in signals_json or as top-level fields (dimensions, complexity and domain are required)")
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
