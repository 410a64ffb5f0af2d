package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/projections/metrics"
)

// metricAnswer is what cos_metric_record answers: the measurement as
// recorded and where it landed.
type metricAnswer struct {
	metrics.Recorded
	Seq      uint64    `json:"seq"`
	Time     time.Time `json:"time"`
	Replayed bool      `json:"replayed"`
}

func metricTools() []*Tool {
	return []*Tool{
		{
			Name:        "cos_metric_record",
			Title:       "Record a metric",
			Description: "Record one measurement of a metric.",
			Data:        fieldsOf(metricAnswer{}),
			Module:      "metrics", Layer: envelope.LayerMetrics, Idempotent: false,
			Example: metrics.RecordExample,
			Params: []Param{
				{Name: "name", Type: TString, Required: true},
				{Name: "value", Type: TNumber, Required: true},
				{Name: "unit", Type: TString},
				{Name: "tags", Type: TObject, Description: "string values"},
				requestIDParam,
			},
			Handler: metricRecordTool,
		},
		{
			Name:        "cos_metric_query",
			Title:       "Query a metric",
			Description: "Aggregate a metric over [since, until): RFC 3339 times or durations ago (\"24h\").",
			Data:        fieldsOf(metrics.Result{}),
			Module:      "metrics", Layer: envelope.LayerMetrics, ReadOnly: true, Idempotent: true,
			Example: metrics.QueryExample,
			Params: []Param{
				{Name: "name", Type: TString, Required: true},
				{Name: "since", Type: TString},
				{Name: "until", Type: TString},
				{Name: "agg", Type: TString, Enum: metrics.Aggs, Default: metrics.DefaultAgg},
			},
			Handler: metricQueryTool,
		},
	}
}

func metricRecordTool(ctx context.Context, c *Call) (any, envelope.ToolMeta, error) {
	var tm envelope.ToolMeta
	rid, err := requestIDOfCall(c)
	if err != nil {
		return nil, tm, err
	}
	rec := metrics.Recorded{Name: c.Args.Str("name"), Value: c.Args.Float("value", 0), Unit: c.Args.Str("unit")}
	if raw := c.Args.Raw("tags"); raw != nil {
		if err := json.Unmarshal(raw, &rec.Tags); err != nil {
			return nil, tm, &metrics.ArgumentError{Field: "tags", Got: describe(raw),
				Legal: "an object of string values", Example: metrics.RecordExample}
		}
	}
	p, err := rec.Payload()
	if err != nil {
		return nil, tm, err
	}
	recs, err := c.Append(ctx, eventlog.AppendRequest{Stream: metrics.Stream, Events: []eventlog.Payload{p}, RequestID: rid})
	if err != nil {
		return nil, tm, err
	}
	r := recs[0]
	// Wait until the projections hold the point, so that a query right
	// after this answer sees it.
	if err := c.ReadBack(ctx, r.LastSeq, func() {}); err != nil {
		tm.Warnings = append(tm.Warnings, committedReadBackWarning(r.LastSeq, err))
	}
	return metricAnswer{Recorded: rec, Seq: r.LastSeq, Time: r.Time, Replayed: r.Replayed}, tm, nil
}

func metricQueryTool(_ context.Context, c *Call) (any, envelope.ToolMeta, error) {
	var tm envelope.ToolMeta
	now := time.Now().UTC()
	since, err := windowEnd("since", c.Args.Str("since"), now)
	if err != nil {
		return nil, tm, err
	}
	until, err := windowEnd("until", c.Args.Str("until"), now)
	if err != nil {
		return nil, tm, err
	}
	res, err := c.V.Series.Query(c.Args.Str("name"), since, until, c.Args.StrOr("agg", metrics.DefaultAgg))
	if err != nil {
		return nil, tm, err
	}
	if res.Overflow {
		tm.Warnings = append(tm.Warnings, "the sum of the window's values is beyond ±1.8e308, which no JSON number holds: value is null (avg stays finite)")
	}
	return res, tm, nil
}

// windowEnd parses one end of a query window: "" (open), an RFC 3339 time,
// or a positive Go duration meaning that long before now.
func windowEnd(field, s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, &metrics.ArgumentError{Field: field, Got: fmt.Sprintf("%q", s),
		Legal:   `an RFC 3339 time ("2026-11-30T00:00:00Z") or a positive duration before now ("24h", "15m")`,
		Example: metrics.QueryExample}
}
