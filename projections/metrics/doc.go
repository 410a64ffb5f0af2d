// Package metrics is the metrics projection: numeric measurements recorded
// by agents and tools (cos_metric_record) and aggregated on read
// (cos_metric_query).
//
// # Basics
//
// Every measurement is one metric.recorded event on the stream "metrics";
// its data is Recorded{name, value, unit, tags} and its time is the event's
// commit time. Series (Name "metrics") keeps every point of every name in
// log order; Query aggregates the points of one name in a half-open time
// window [since, until) with count, sum, avg, min, max, p50, p95, p99 or
// last. Percentiles use the nearest-rank method.
//
// # Caveats
//
// Points are kept forever (no retention or downsampling yet); memory grows
// with the number of metric events.
package metrics
