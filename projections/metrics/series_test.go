package metrics

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/internal/testutil"
)

var baseTime = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

// events turns measurements into metric.recorded events one second apart,
// starting at baseTime+1s.
func events(t testing.TB, rs ...Recorded) []eventlog.Event {
	t.Helper()
	var out []eventlog.Event
	for i, r := range rs {
		p, err := r.Payload()
		if err != nil {
			t.Fatal(err)
		}
		typ, data := p.Type, p.Data
		seq := uint64(i + 1)
		sum := sha256.Sum256(data)
		out = append(out, eventlog.Event{Seq: seq, Time: baseTime.Add(time.Duration(seq) * time.Second), Stream: Stream,
			Revision: seq, Type: typ, Data: data, Hash: hex.EncodeToString(sum[:])})
	}
	return out
}

func seriesOf(t testing.TB, rs ...Recorded) *Series {
	s := NewSeries()
	for _, ev := range events(t, rs...) {
		if err := s.Apply(ev); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func script() []Recorded {
	var rs []Recorded
	for i := 1; i <= 100; i++ {
		rs = append(rs, Recorded{Name: "tool.latency_ms", Value: float64(i), Unit: "ms", Tags: map[string]string{"tool": fmt.Sprintf("t%d", i%3)}})
		if i%25 == 0 {
			rs = append(rs, Recorded{Name: "tasks.done", Value: 1})
		}
	}
	return rs
}

func TestSeries_Query(t *testing.T) {
	s := seriesOf(t, script()...)
	at := func(sec int) time.Time { return baseTime.Add(time.Duration(sec) * time.Second) }
	cases := []struct {
		agg          string
		since, until time.Time
		want         float64
		count        int
	}{
		{AggCount, time.Time{}, time.Time{}, 100, 100},
		{AggSum, time.Time{}, time.Time{}, 5050, 100},
		{AggAvg, time.Time{}, time.Time{}, 50.5, 100},
		{AggMin, time.Time{}, time.Time{}, 1, 100},
		{AggMax, time.Time{}, time.Time{}, 100, 100},
		{AggP50, time.Time{}, time.Time{}, 50, 100},
		{AggP95, time.Time{}, time.Time{}, 95, 100},
		{AggP99, time.Time{}, time.Time{}, 99, 100},
		{AggLast, time.Time{}, time.Time{}, 100, 100},
		// seq 1..25 are values 1..25, seq 26 is tasks.done, seq 27 is value 26.
		{AggCount, at(1), at(27), 25, 25},
		{AggMax, at(1), at(27), 25, 25},
		{AggMin, at(27), time.Time{}, 26, 75},
		{AggLast, time.Time{}, at(3), 2, 2},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s/%d", tc.agg, tc.count), func(t *testing.T) {
			r, err := s.Query("tool.latency_ms", tc.since, tc.until, tc.agg)
			if err != nil {
				t.Fatal(err)
			}
			if r.Value == nil || *r.Value != tc.want || r.Count != tc.count || r.Unit != "ms" {
				t.Errorf("got %+v (value %v), want %v over %d", r, deref(r.Value), tc.want, tc.count)
			}
		})
	}
	if pts := s.pointsOf("tasks.done"); len(pts) != 4 || pts[0].Seq != 26 || len(s.pointsOf("never")) != 0 {
		t.Errorf("Points(tasks.done) = %+v", pts)
	}
	empty, err := s.Query("tool.latency_ms", at(500), time.Time{}, AggAvg)
	if err != nil || empty.Value != nil || empty.Count != 0 {
		t.Errorf("empty window: %+v, %v", empty, err)
	}
	if c, _ := s.Query("tool.latency_ms", at(500), time.Time{}, AggCount); c.Value == nil || *c.Value != 0 {
		t.Errorf("empty count: %+v", c)
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

func TestSeries_Query_Invalid(t *testing.T) {
	s := seriesOf(t, Recorded{Name: "m", Value: 1})
	cases := []struct {
		name, metric, agg string
		since, until      time.Time
		field             string
		legal             string
	}{
		{"bad agg", "m", "median", time.Time{}, time.Time{}, "agg", "count, sum, avg, min, max, p50, p95, p99, last"},
		{"empty agg", "m", "", time.Time{}, time.Time{}, "agg", "p99"},
		{"bad name", "m m", AggAvg, time.Time{}, time.Time{}, "name", "1–128"},
		{"window backwards", "m", AggAvg, baseTime.Add(time.Hour), baseTime, "until", "after since"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.Query(tc.metric, tc.since, tc.until, tc.agg)
			var ae *ArgumentError
			if !errors.As(err, &ae) || !errors.Is(err, ErrInvalidArgument) || ae.Field != tc.field || !strings.Contains(ae.Legal, tc.legal) || ae.Example == "" {
				t.Errorf("err = %v", err)
			}
		})
	}
	if _, err := s.Query("never", time.Time{}, time.Time{}, AggAvg); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown metric: %v", err)
	}
}

func TestRecorded_Validate(t *testing.T) {
	tooManyTags := map[string]string{}
	for i := range MaxTags + 1 {
		tooManyTags[fmt.Sprint(i)] = "v"
	}
	cases := []struct {
		name  string
		r     Recorded
		field string
	}{
		{"empty name", Recorded{Value: 1}, "name"},
		{"name with space", Recorded{Name: "a b", Value: 1}, "name"},
		{"long name", Recorded{Name: strings.Repeat("a", MaxNameLen+1), Value: 1}, "name"},
		{"NaN", Recorded{Name: "a", Value: math.NaN()}, "value"},
		{"Inf", Recorded{Name: "a", Value: math.Inf(1)}, "value"},
		{"long unit", Recorded{Name: "a", Unit: strings.Repeat("u", MaxUnitLen+1)}, "unit"},
		{"too many tags", Recorded{Name: "a", Tags: tooManyTags}, "tags"},
		{"empty tag key", Recorded{Name: "a", Tags: map[string]string{"": "v"}}, "tags"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var ae *ArgumentError
			if err := tc.r.Validate(); !errors.As(err, &ae) || ae.Field != tc.field || !strings.Contains(err.Error(), RecordExample) {
				t.Errorf("err = %v, want field %s", err, tc.field)
			}
		})
	}
	// The reducer refuses what Validate refuses.
	bad := eventlog.Event{Seq: 1, Type: TypeRecorded, Stream: Stream, Data: json.RawMessage(`{"name": "a b", "value": 1}`)}
	if err := NewSeries().Apply(bad); err == nil {
		t.Error("Apply accepted an invalid metric")
	}
}

func TestSeries_Golden(t *testing.T) {
	s := seriesOf(t, script()[:6]...)
	got, err := s.MarshalSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	var pretty map[string]any
	_ = json.Unmarshal(got, &pretty)
	out, _ := json.MarshalIndent(pretty, "", "  ")
	testutil.Golden(t, filepath.Join("testdata", "series.golden.json"), append(out, '\n'))
}

func TestSeries_Snapshot_RoundTrip(t *testing.T) {
	evs := events(t, script()...)
	whole := NewSeries()
	for _, ev := range evs {
		_ = whole.Apply(ev)
	}
	for _, k := range []int{0, 1, 50, len(evs)} {
		head := NewSeries()
		for _, ev := range evs[:k] {
			_ = head.Apply(ev)
		}
		snap, err := head.MarshalSnapshot()
		if err != nil {
			t.Fatal(err)
		}
		restored := NewSeries()
		if err := restored.UnmarshalSnapshot(snap); err != nil {
			t.Fatal(err)
		}
		if restored.StateHash() != head.StateHash() {
			t.Fatalf("k=%d: restored hash differs", k)
		}
		for _, ev := range evs[k:] {
			_ = restored.Apply(ev)
		}
		if restored.StateHash() != whole.StateHash() {
			t.Fatalf("k=%d: snapshot + tail differs", k)
		}
	}
	if err := NewSeries().UnmarshalSnapshot([]byte(`{"version": 2}`)); err == nil {
		t.Error("accepted a snapshot of another version")
	}
}

func BenchmarkSeries_QueryP95(b *testing.B) {
	s := NewSeries()
	for _, ev := range events(b, script()...) {
		_ = s.Apply(ev)
	}
	for i := range 100_000 {
		s.points["tool.latency_ms"] = append(s.points["tool.latency_ms"], Point{Seq: uint64(1000 + i), Time: baseTime.Add(time.Hour), Value: float64(i % 997)})
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.Query("tool.latency_ms", time.Time{}, time.Time{}, AggP95); err != nil {
			b.Fatal(err)
		}
	}
}

func TestNthSmallest_MatchesSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 1; n <= 64; n++ {
		for trial := 0; trial < 20; trial++ {
			vals := make([]float64, n)
			for i := range vals {
				vals[i] = float64(rng.IntN(8)) // many duplicates
			}
			sorted := slices.Clone(vals)
			slices.Sort(sorted)
			k := rng.IntN(n)
			if got := nthSmallest(slices.Clone(vals), k); got != sorted[k] {
				t.Fatalf("n=%d k=%d: got %v, want %v (vals %v)", n, k, got, sorted[k], vals)
			}
		}
	}
}

// A sum beyond float64's range answers no value and says so (a JSON
// number cannot hold it); the mean of the same points stays finite.
func TestQuery_SumOverflow(t *testing.T) {
	s := seriesOf(t, Recorded{Name: "x.inf", Value: 1.7e308}, Recorded{Name: "x.inf", Value: 1.7e308})
	sum, err := s.Query("x.inf", time.Time{}, time.Time{}, AggSum)
	if err != nil || sum.Value != nil || !sum.Overflow || sum.Count != 2 {
		t.Fatalf("sum = %+v, %v; want no value, overflow, count 2", sum, err)
	}
	avg, err := s.Query("x.inf", time.Time{}, time.Time{}, AggAvg)
	if err != nil || avg.Value == nil || *avg.Value != 1.7e308 || avg.Overflow {
		t.Fatalf("avg = %+v, %v; want 1.7e308", avg, err)
	}
}
