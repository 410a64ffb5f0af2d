package tools

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestMetricList_LatestPointsByName(t *testing.T) {
	s := openServer(t, "")
	var seqs []float64
	for i, rec := range []string{
		`{"name":"tool.latency_ms","value":12,"unit":"ms"}`,
		`{"name":"build.seconds","value":40,"unit":"s","tags":{"os":"linux"}}`,
		`{"name":"tool.latency_ms","value":7,"unit":"ms"}`,
		`{"name":"tool.calls","value":3}`,
		`{"name":"tool.latency_ms","value":30,"unit":"us"}`,
	} {
		e := okEnv(t, call(t, s, "cos_metric_record", rec), fmt.Sprint("record ", i))
		seqs = append(seqs, e.Data["seq"].(float64))
	}
	e := okEnv(t, hubCall(t, s, "cos_metric_list", `{"points": 2}`), "list")
	ms := e.Data["metrics"].([]any)
	if e.Data["total"] != 3.0 || len(ms) != 3 {
		t.Fatalf("total %v, %d metrics; want 3: %v", e.Data["total"], len(ms), e.Data)
	}
	var names []string
	for _, m := range ms {
		names = append(names, m.(map[string]any)["name"].(string))
	}
	if strings.Join(names, ",") != "build.seconds,tool.calls,tool.latency_ms" {
		t.Fatalf("names %v, want sorted", names)
	}
	lat := ms[2].(map[string]any)
	latest := lat["latest"].(map[string]any)
	recent := lat["recent"].([]any)
	if lat["count"] != 3.0 || lat["unit"] != "us" || latest["value"] != 30.0 || latest["seq"] != seqs[4] || len(recent) != 2 ||
		recent[0].(map[string]any)["value"] != 30.0 || recent[1].(map[string]any)["value"] != 7.0 {
		t.Fatalf("tool.latency_ms: %v; want count 3, unit us, latest 30 at seq %v, recent [30 7]", lat, seqs[4])
	}
	if tags := ms[0].(map[string]any)["latest"].(map[string]any)["tags"]; fmt.Sprint(tags) != "map[os:linux]" {
		t.Fatalf("build.seconds tags %v", tags)
	}

	// A prefix and a limit: the total is every match, a warning says the
	// list was cut.
	e = okEnv(t, hubCall(t, s, "cos_metric_list", `{"prefix": "tool.", "limit": 1}`), "prefix")
	ms = e.Data["metrics"].([]any)
	w, _ := e.Data["meta"].(map[string]any)["warnings"].([]any)
	if e.Data["total"] != 2.0 || len(ms) != 1 || ms[0].(map[string]any)["name"] != "tool.calls" || len(w) != 1 || !strings.Contains(w[0].(string), "first 1 of 2") {
		t.Fatalf("prefix tool. limit 1: %v", e.Data)
	}

	// At the seq of the second latency point the third is not there yet.
	e = okEnv(t, hubCall(t, s, "cos_metric_list", fmt.Sprintf(`{"prefix": "tool.latency", "at": %v}`, seqs[2])), "at")
	lat = e.Data["metrics"].([]any)[0].(map[string]any)
	if lat["count"] != 2.0 || lat["latest"].(map[string]any)["value"] != 7.0 || e.Data["meta"].(map[string]any)["at_seq"] != seqs[2] {
		t.Fatalf("at seq %v: %v; want 2 points, latest 7", seqs[2], e.Data)
	}
	// Before the first point: no metric at all, an empty list.
	e = okEnv(t, hubCall(t, s, "cos_metric_list", `{"at": 0}`), "at 0")
	if ms, ok := e.Data["metrics"].([]any); !ok || len(ms) != 0 || e.Data["total"] != 0.0 {
		t.Fatalf("at 0: %v; want an empty list", e.Data)
	}
}

func TestMetricList_Refusals(t *testing.T) {
	s := openServer(t, "")
	for _, c := range []struct{ args, field string }{
		{`{"limit": 0}`, "limit"},
		{`{"points": 101}`, "points"},
		{`{"prefix": 7}`, "prefix"},
		{`{"at": "yesterday"}`, "at"},
	} {
		e := hubCall(t, s, "cos_metric_list", c.args)
		if e.OK || e.Error.Code != "E_ARGUMENT" || e.Error.Details["field"] != c.field {
			t.Errorf("%s: %+v; want E_ARGUMENT on %s", c.args, e.Error, c.field)
		}
	}
	tool := s.r.tools["cos_metric_list"]
	if err := tool.Data.check(); err != nil {
		t.Errorf("Data: %v", err)
	}
	var schema map[string]any
	if err := json.Unmarshal(tool.OutputSchema(), &schema); err != nil || !strings.Contains(string(tool.OutputSchema()), `"recent"`) {
		t.Errorf("outputSchema: %v %s", err, tool.OutputSchema())
	}
	// An agent does not see it: MCP lists no Hub tool.
	if e := call(t, s, "cos_metric_list", `{}`); e.OK || e.Error.Code != "E_UNKNOWN_TOOL" {
		t.Fatalf("with an agent budget: %+v", e)
	}
}
