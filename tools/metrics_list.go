package tools

import (
	"context"
	"fmt"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/projections/metrics"
)

// Bounds of cos_metric_list: metrics per answer and points per metric.
const (
	metricListLimitDefault  = 100
	metricListLimitMax      = 500
	metricListPointsDefault = 10
	metricListPointsMax     = 100
)

// metricListAnswer is what cos_metric_list answers.
type metricListAnswer struct {
	// Metrics are sorted by name, each with its latest points.
	Metrics []metrics.Summary `json:"metrics"`
	// Total is the number of metrics that matched the prefix; more than
	// len(metrics) when limit cut the list.
	Total int `json:"total"`
}

// metricListTool is cos_metric_list, a Tool.HubOnly tool: the Hub's
// metrics view lists every metric with its latest values, which an agent
// asks cos_metric_query for by name.
func metricListTool() *Tool {
	return &Tool{
		Name:        "cos_metric_list",
		Title:       "Metrics",
		Description: "Recorded metrics by name, each with its count and latest points, newest first.",
		Data:        fieldsOf(metricListAnswer{}),
		Module:      "metrics", Layer: envelope.LayerMetrics, ReadOnly: true, Idempotent: true, HubOnly: true,
		Example: `{"prefix": "tool.", "points": 5}`,
		Params: []Param{
			{Name: "prefix", Type: TString, MaxLen: metrics.MaxNameLen},
			{Name: "limit", Type: TInt, Min: f64(1), Max: f64(metricListLimitMax), Default: metricListLimitDefault},
			{Name: "points", Type: TInt, Min: f64(1), Max: f64(metricListPointsMax), Default: metricListPointsDefault},
		},
		Handler: metricListHandler,
	}
}

func metricListHandler(_ context.Context, c *Call) (any, envelope.ToolMeta, error) {
	var tm envelope.ToolMeta
	list, total := c.V.Series.Summaries(c.Args.Str("prefix"),
		c.Args.Int("limit", metricListLimitDefault), c.Args.Int("points", metricListPointsDefault))
	if list == nil {
		list = []metrics.Summary{}
	}
	if total > len(list) {
		tm.Warnings = append(tm.Warnings, fmt.Sprintf("limit: the first %d of %d metrics by name; send prefix or a larger limit for the rest", len(list), total))
	}
	return metricListAnswer{Metrics: list, Total: total}, tm, nil
}
