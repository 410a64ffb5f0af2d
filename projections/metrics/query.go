package metrics

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Aggregations of Query.
const (
	AggCount = "count"
	AggSum   = "sum"
	AggAvg   = "avg"
	AggMin   = "min"
	AggMax   = "max"
	AggP50   = "p50"
	AggP95   = "p95"
	AggP99   = "p99"
	AggLast  = "last"
	// DefaultAgg is what the tool passes when the caller gives no agg.
	DefaultAgg = AggAvg
)

// Aggs lists the legal aggregations.
var Aggs = []string{AggCount, AggSum, AggAvg, AggMin, AggMax, AggP50, AggP95, AggP99, AggLast}

// QueryExample is the corrected example of a query error.
const QueryExample = `{"name": "tool.latency_ms", "since": "2026-11-30T00:00:00Z", "agg": "p95"}`

// Result is the answer of Query.
type Result struct {
	Name string `json:"name"`
	Agg  string `json:"agg"`
	// Value is the aggregate; nil when the window holds no point (count is
	// then 0, not nil) or when a sum is beyond float64's range (Overflow).
	Value *float64 `json:"value"`
	// Overflow is true when the sum of the window's points is beyond
	// ±1.8e308, which no JSON number holds: Value is then nil.
	Overflow bool `json:"overflow,omitempty"`
	// Count is the number of points in the window.
	Count int `json:"count"`
	// Unit is the unit of the window's last point.
	Unit  string    `json:"unit,omitempty"`
	Since time.Time `json:"since,omitzero"`
	Until time.Time `json:"until,omitzero"`
}

// Query aggregates the points of name whose time t is in [since, until); a
// zero since or until leaves that side open. agg is one of Aggs.
// Errors: *ArgumentError (errors.Is ErrInvalidArgument) for a bad name, agg
// or a window with until ≤ since; ErrNotFound when name was never recorded.
func (s *Series) Query(name string, since, until time.Time, agg string) (Result, error) {
	if !validName(name) {
		return Result{}, &ArgumentError{Field: "name", Got: strconv.Quote(name), Legal: fmt.Sprintf("1–%d characters of a–z A–Z 0–9 . _ - : /", MaxNameLen), Example: QueryExample}
	}
	if !slices.Contains(Aggs, agg) {
		return Result{}, &ArgumentError{Field: "agg", Got: strconv.Quote(agg), Legal: strings.Join(Aggs, ", ") + " (default " + DefaultAgg + ")", Example: QueryExample}
	}
	if !since.IsZero() && !until.IsZero() && !until.After(since) {
		return Result{}, &ArgumentError{Field: "until", Got: strconv.Quote(until.UTC().Format(time.RFC3339Nano)), Legal: "a time after since (" + since.UTC().Format(time.RFC3339Nano) + ")", Example: QueryExample}
	}
	pts, ok := s.points[name]
	if !ok {
		return Result{}, fmt.Errorf("%w: %q", ErrNotFound, name)
	}
	res := Result{Name: name, Agg: agg, Since: since.UTC(), Until: until.UTC()}
	vals := make([]float64, 0, len(pts))
	for _, p := range pts {
		if (!since.IsZero() && p.Time.Before(since)) || (!until.IsZero() && !p.Time.Before(until)) {
			continue
		}
		vals = append(vals, p.Value)
		res.Unit = p.Unit
	}
	res.Count = len(vals)
	if agg == AggCount {
		v := float64(len(vals))
		res.Value = &v
		return res, nil
	}
	if len(vals) == 0 {
		return res, nil
	}
	v := aggregate(agg, vals)
	if math.IsInf(v, 0) {
		res.Overflow = true
		return res, nil
	}
	res.Value = &v
	return res, nil
}

// aggregate computes agg over a non-empty vals (in log order).
func aggregate(agg string, vals []float64) float64 {
	switch agg {
	case AggLast:
		return vals[len(vals)-1]
	case AggSum:
		sum := 0.0
		for _, v := range vals {
			sum += v
		}
		return sum
	case AggAvg:
		// A running mean: it stays finite where the sum of finite values
		// would not.
		mean := 0.0
		for i, v := range vals {
			mean += (v - mean) / float64(i+1)
		}
		return mean
	case AggMin:
		return slices.Min(vals)
	case AggMax:
		return slices.Max(vals)
	}
	q := map[string]float64{AggP50: 0.50, AggP95: 0.95, AggP99: 0.99}[agg]
	// Nearest rank: the smallest value with at least q of the points at or
	// below it.
	rank := int(math.Ceil(q * float64(len(vals))))
	return nthSmallest(vals, max(rank, 1)-1)
}

// nthSmallest returns the k-th smallest (0-based) of vals, which it
// reorders: Hoare's quickselect with a median-of-three pivot, O(n) on
// average.
func nthSmallest(vals []float64, k int) float64 {
	lo, hi := 0, len(vals)-1
	for lo < hi {
		mid := lo + (hi-lo)/2
		// Median of three into vals[mid].
		if vals[mid] < vals[lo] {
			vals[mid], vals[lo] = vals[lo], vals[mid]
		}
		if vals[hi] < vals[lo] {
			vals[hi], vals[lo] = vals[lo], vals[hi]
		}
		if vals[hi] < vals[mid] {
			vals[hi], vals[mid] = vals[mid], vals[hi]
		}
		pivot := vals[mid]
		i, j := lo, hi
		for i <= j {
			for vals[i] < pivot {
				i++
			}
			for vals[j] > pivot {
				j--
			}
			if i <= j {
				vals[i], vals[j] = vals[j], vals[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return vals[k]
		}
	}
	return vals[k]
}
