package metrics

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/cos-dev/cos/eventlog"
)

// Stream is the log stream of every metric event.
const Stream = "metrics"

// TypeRecorded is the event type of one measurement; data is Recorded.
const TypeRecorded = "metric.recorded"

// Limits of a measurement.
const (
	MaxNameLen   = 128
	MaxUnitLen   = 32
	MaxTags      = 32
	MaxTagKeyLen = 64
	MaxTagValLen = 256
)

// RecordExample is the corrected example of a record error.
const RecordExample = `{"name": "tool.latency_ms", "value": 12.5, "unit": "ms", "tags": {"tool": "cos_task_board"}}`

// Recorded is the payload of metric.recorded.
type Recorded struct {
	Name  string            `json:"name"`
	Value float64           `json:"value"`
	Unit  string            `json:"unit,omitempty"`
	Tags  map[string]string `json:"tags,omitempty"`
}

// Validate checks a measurement: name 1–128 characters of a–z A–Z 0–9 . _
// - : /, value finite, unit at most 32 characters, at most 32 tags with
// non-empty keys (≤ 64) and values ≤ 256 characters.
func (r Recorded) Validate() error {
	bad := func(field, got, legal string) error {
		return &ArgumentError{Field: field, Got: got, Legal: legal, Example: RecordExample}
	}
	if !validName(r.Name) {
		return bad("name", strconv.Quote(r.Name), fmt.Sprintf("1–%d characters of a–z A–Z 0–9 . _ - : /", MaxNameLen))
	}
	if math.IsNaN(r.Value) || math.IsInf(r.Value, 0) {
		return bad("value", fmt.Sprint(r.Value), "a finite number")
	}
	if len([]rune(r.Unit)) > MaxUnitLen {
		return bad("unit", strconv.Quote(r.Unit), fmt.Sprintf("at most %d characters, e.g. \"ms\"", MaxUnitLen))
	}
	if len(r.Tags) > MaxTags {
		return bad("tags", fmt.Sprintf("%d tags", len(r.Tags)), fmt.Sprintf("at most %d tags", MaxTags))
	}
	for k, v := range r.Tags {
		if k == "" || len([]rune(k)) > MaxTagKeyLen || len([]rune(v)) > MaxTagValLen {
			return bad("tags", strconv.Quote(k)+": "+strconv.Quote(v), fmt.Sprintf("keys of 1–%d characters, values of at most %d", MaxTagKeyLen, MaxTagValLen))
		}
	}
	return nil
}

// Payload validates the measurement and returns the metric.recorded event
// to append to Stream.
func (r Recorded) Payload() (eventlog.Payload, error) {
	if err := r.Validate(); err != nil {
		return eventlog.Payload{}, err
	}
	data, err := json.Marshal(r)
	if err != nil {
		return eventlog.Payload{}, fmt.Errorf("encode metric: %w", err)
	}
	return eventlog.Payload{Type: TypeRecorded, Data: data}, nil
}

func validName(s string) bool {
	if s == "" || len(s) > MaxNameLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !nameByte(s[i]) {
			return false
		}
	}
	return true
}

// nameByte reports whether c may appear in a metric name.
func nameByte(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return strings.IndexByte("._-:/", c) >= 0
}
