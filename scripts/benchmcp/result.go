package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
)

// Result is one measured figure: the samples of several runs of one
// workload, placed in a table at (Row, Col). Text replaces the number for
// yes/no figures ("loads").
type Result struct {
	Table   string    `json:"table"`
	Row     string    `json:"row"`
	Col     string    `json:"col"`
	Unit    string    `json:"unit"`
	Samples []float64 `json:"samples,omitempty"`
	Text    string    `json:"text,omitempty"`
	Note    string    `json:"note,omitempty"`
}

// Median, Min and Max of the samples; NaN when there are none.
func (r Result) Median() float64 { return median(r.Samples) }

// Min is the smallest sample.
func (r Result) Min() float64 {
	if len(r.Samples) == 0 {
		return math.NaN()
	}
	return slices.Min(r.Samples)
}

// Max is the largest sample.
func (r Result) Max() float64 {
	if len(r.Samples) == 0 {
		return math.NaN()
	}
	return slices.Max(r.Samples)
}

// median is the middle sample (the mean of the two middle ones for an even
// count); NaN for none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// percentile is the nearest-rank q-quantile (0 < q ≤ 1) of xs; NaN for none.
func percentile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	i := int(math.Ceil(q*float64(len(s)))) - 1
	return s[max(0, min(i, len(s)-1))]
}

// Recorder collects results and writes them as JSON lines.
type Recorder struct {
	results []Result
	index   map[string]int
}

// Add appends one sample to the result at (table, row, col), creating it.
func (r *Recorder) Add(table, row, col, unit string, v float64) {
	if r.index == nil {
		r.index = map[string]int{}
	}
	k := table + "\x00" + row + "\x00" + col
	i, ok := r.index[k]
	if !ok {
		i = len(r.results)
		r.index[k] = i
		r.results = append(r.results, Result{Table: table, Row: row, Col: col, Unit: unit})
	}
	r.results[i].Samples = append(r.results[i].Samples, v)
}

// SetText sets a textual figure at (table, row, col); a later call with a
// different text joins them ("yes / no").
func (r *Recorder) SetText(table, row, col, text string) {
	if r.index == nil {
		r.index = map[string]int{}
	}
	k := table + "\x00" + row + "\x00" + col
	i, ok := r.index[k]
	if !ok {
		i = len(r.results)
		r.index[k] = i
		r.results = append(r.results, Result{Table: table, Row: row, Col: col, Text: text})
		return
	}
	if !slices.Contains(strings.Split(r.results[i].Text, " / "), text) {
		r.results[i].Text += " / " + text
	}
}

// Results are the collected results in the order first added.
func (r *Recorder) Results() []Result { return r.results }

// WriteJSONL writes one JSON object per result.
func (r *Recorder) WriteJSONL(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, res := range r.results {
		if err := enc.Encode(res); err != nil {
			return err
		}
	}
	return nil
}

// ReadJSONL reads results written by WriteJSONL; blank lines are skipped.
func ReadJSONL(r io.Reader) ([]Result, error) {
	var out []Result
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	line := 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if len(b) == 0 {
			continue
		}
		var res Result
		if err := json.Unmarshal(b, &res); err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		out = append(out, res)
	}
	return out, sc.Err()
}

// removeAll deletes a temporary store; a failure leaves litter in the
// benchmark's temporary folder, which bench.sh removes on exit anyway.
func removeAll(dir string) { _ = os.RemoveAll(dir) }
