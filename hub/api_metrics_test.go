package hub

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"testing"

	"github.com/cos-dev/cos/envelope"
)

func TestAPI_Metrics(t *testing.T) { exerciseMetrics(newAPIEnv(t, false)) }

// exerciseMetrics records points as an agent does and reads them back
// through /api/metrics (every metric, latest first) and
// /api/metrics/query (one metric's aggregate), now and at a past seq.
func exerciseMetrics(e *apiEnv) {
	t := e.tb
	ctx := context.Background()
	var seqs []int
	for _, v := range []string{"5", "9", "2"} {
		env := e.r.Call(ctx, "cos_metric_record", json.RawMessage(`{"name": "hub.test_ms", "value": `+v+`, "unit": "ms"}`), envelope.Options{})
		if !env.OK() {
			t.Fatalf("record: %s", env.JSON())
		}
		n, _ := strconv.Atoi(num(env.Data()["seq"]))
		seqs = append(seqs, n)
	}
	a := e.do(http.MethodGet, "/api/metrics?prefix=hub.&points=2", "").want(t, http.StatusOK, "")
	ms := a.data("metrics").([]any)
	if len(ms) != 1 || num(a.data("total")) != "1" {
		t.Fatalf("metrics: %s", a.raw)
	}
	m := ms[0].(map[string]any)
	if m["name"] != "hub.test_ms" || num(m["count"]) != "3" || num(m["latest"].(map[string]any)["value"]) != "2" || len(m["recent"].([]any)) != 2 {
		t.Fatalf("hub.test_ms: %s", a.raw)
	}
	a = e.do(http.MethodGet, "/api/metrics?at="+strconv.Itoa(seqs[1]), "").want(t, http.StatusOK, "")
	if m := a.data("metrics").([]any)[0].(map[string]any); num(m["latest"].(map[string]any)["value"]) != "9" {
		t.Fatalf("metrics at seq %d: %s", seqs[1], a.raw)
	}
	e.do(http.MethodGet, "/api/metrics?limit=0", "").want(t, http.StatusBadRequest, "E_ARGUMENT")

	a = e.do(http.MethodGet, "/api/metrics/query?name=hub.test_ms&agg=max", "").want(t, http.StatusOK, "")
	if num(a.data("value")) != "9" || num(a.data("count")) != "3" {
		t.Fatalf("query max: %s", a.raw)
	}
	e.do(http.MethodGet, "/api/metrics/query?name=hub.test_ms&agg=median", "").want(t, http.StatusBadRequest, "E_ARGUMENT")
	e.do(http.MethodGet, "/api/metrics/query?name=hub.never", "").want(t, http.StatusNotFound, "")
}
