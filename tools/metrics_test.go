package tools

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"
	"time"
)

func TestMetricRecord_ThenQueryEveryAgg(t *testing.T) {
	s := openServer(t, "")
	values := []float64{12.5, 3, 40, 7.25, 19, 1, 33, 8}
	for i, v := range values {
		e := okEnv(t, call(t, s, "cos_metric_record", fmt.Sprintf(`{"name":"tool.latency_ms","value":%v,"unit":"ms","tags":{"tool":"t%d"}}`, v, i)), "record")
		if e.Data["value"].(float64) != v || e.Data["seq"].(float64) != float64(i+1) || e.Data["meta"].(map[string]any)["layer"] != "metrics" {
			t.Fatalf("record answered %v", e.Data)
		}
	}
	sorted := append([]float64(nil), values...)
	sort.Float64s(sorted)
	sum := 0.0
	for _, v := range values {
		sum += v
	}
	rank := func(p float64) float64 { return sorted[int(math.Ceil(p*float64(len(sorted))))-1] } // nearest rank
	want := map[string]float64{
		"count": float64(len(values)), "sum": sum, "avg": sum / float64(len(values)), "min": sorted[0],
		"max": sorted[len(sorted)-1], "p50": rank(0.50), "p95": rank(0.95), "p99": rank(0.99), "last": values[len(values)-1],
	}
	for agg, w := range want {
		e := okEnv(t, call(t, s, "cos_metric_query", fmt.Sprintf(`{"name":"tool.latency_ms","agg":%q}`, agg)), agg)
		if got := e.Data["value"].(float64); math.Abs(got-w) > 1e-9 || e.Data["count"].(float64) != float64(len(values)) || e.Data["unit"] != "ms" {
			t.Errorf("%s = %v (count %v), want %v", agg, got, e.Data["count"], w)
		}
	}
	if e := okEnv(t, call(t, s, "cos_metric_query", `{"name":"tool.latency_ms"}`), "default agg"); e.Data["agg"] != "avg" {
		t.Fatalf("default agg %v", e.Data["agg"])
	}
	// The window: everything recorded lies in the last hour, nothing a day
	// before that.
	if e := okEnv(t, call(t, s, "cos_metric_query", `{"name":"tool.latency_ms","since":"1h","agg":"count"}`), "since 1h"); e.Data["count"].(float64) != float64(len(values)) {
		t.Fatalf("since 1h: %v", e.Data)
	}
	old := time.Now().Add(-24 * time.Hour).UTC().Format(time.RFC3339)
	e := okEnv(t, call(t, s, "cos_metric_query", `{"name":"tool.latency_ms","until":"`+old+`","agg":"max"}`), "until yesterday")
	if e.Data["count"].(float64) != 0 || e.Data["value"] != nil {
		t.Fatalf("empty window: %v", e.Data)
	}
}

func TestMetricTools_Errors(t *testing.T) {
	s := openServer(t, "")
	okEnv(t, call(t, s, "cos_metric_record", `{"name":"m","value":1}`), "record")
	cases := []struct {
		name, tool, args, code, field string
	}{
		{"bad name", "cos_metric_record", `{"name":"has space","value":1}`, "E_ARGUMENT", "name"},
		{"value not a number", "cos_metric_record", `{"name":"m","value":"fast"}`, "E_ARGUMENT", "value"},
		{"tag not a string", "cos_metric_record", `{"name":"m","value":1,"tags":{"n":3}}`, "E_ARGUMENT", "tags"},
		{"empty request_id", "cos_metric_record", `{"name":"m","value":1,"request_id":""}`, "E_REQUEST_ID", "request_id"},
		{"never recorded", "cos_metric_query", `{"name":"nope"}`, "E_NOT_FOUND", ""},
		{"bad agg", "cos_metric_query", `{"name":"m","agg":"median"}`, "E_ARGUMENT", "agg"},
		{"bad since", "cos_metric_query", `{"name":"m","since":"yesterday"}`, "E_ARGUMENT", "since"},
		{"empty window", "cos_metric_query", `{"name":"m","since":"2026-01-02T00:00:00Z","until":"2026-01-01T00:00:00Z"}`, "E_ARGUMENT", ""},
	}
	for _, c := range cases {
		e := failEnv(t, call(t, s, c.tool, c.args), c.code, c.name)
		if c.field != "" && e.Error.Details["field"] != c.field {
			t.Errorf("%s: details.field = %v, want %s (%s)", c.name, e.Error.Details["field"], c.field, e.Error.Message)
		}
		if c.code == "E_ARGUMENT" && !strings.Contains(e.Error.Message, "example") {
			t.Errorf("%s: no corrected example in %q", c.name, e.Error.Message)
		}
	}
	if n := len(allEvents(t, s)); n != 1 {
		t.Fatalf("refused records wrote: %d events", n)
	}
}

func TestMetricRecord_RequestID(t *testing.T) {
	s := openServer(t, "")
	args := `{"name":"m","value":2,"tags":{"a":"1","b":"2"},"request_id":"m-1"}`
	first := okEnv(t, call(t, s, "cos_metric_record", args), "first")
	again := okEnv(t, call(t, s, "cos_metric_record", `{"request_id":"m-1","tags":{"b":"2","a":"1"},"value":2,"name":"m"}`), "resend")
	if again.Data["replayed"] != true || again.Data["seq"] != first.Data["seq"] {
		t.Fatalf("resend: %v", again.Data)
	}
	failEnv(t, call(t, s, "cos_metric_record", strings.Replace(args, `"value":2`, `"value":3`, 1)), "E_REQUEST_REUSE", "changed value")
	if e := okEnv(t, call(t, s, "cos_metric_query", `{"name":"m","agg":"count"}`), "count"); e.Data["count"].(float64) != 1 {
		t.Fatalf("count = %v, want 1", e.Data["count"])
	}
}
