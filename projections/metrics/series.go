package metrics

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/projections"
)

// Name is the projection's name and snapshot section key.
const Name = "metrics"

const snapshotVersion = 1

// Point is one measurement as the projection keeps it.
type Point struct {
	Seq   uint64            `json:"seq"`
	Time  time.Time         `json:"time"`
	Value float64           `json:"value"`
	Unit  string            `json:"unit,omitempty"`
	Tags  map[string]string `json:"tags,omitempty"`
}

// Series is the metrics projection: the points of every metric name, in log
// order. See projections.Projection for the concurrency contract.
type Series struct {
	points map[string][]Point
}

var _ projections.Projection = (*Series)(nil)

// NewSeries returns an empty projection.
func NewSeries() *Series { return &Series{points: map[string][]Point{}} }

// Name returns "metrics".
func (s *Series) Name() string { return Name }

// Apply folds one metric.recorded event; other events are ignored. An
// invalid measurement is an error and changes nothing.
func (s *Series) Apply(ev eventlog.Event) error {
	if ev.Type != TypeRecorded {
		return nil
	}
	var r Recorded
	if err := json.Unmarshal(ev.Data, &r); err != nil {
		return fmt.Errorf("apply %s seq %d: decode: %w", ev.Type, ev.Seq, err)
	}
	if err := r.Validate(); err != nil {
		return fmt.Errorf("apply %s seq %d: %w", ev.Type, ev.Seq, err)
	}
	if len(r.Tags) == 0 {
		r.Tags = nil
	}
	s.points[r.Name] = append(s.points[r.Name], Point{Seq: ev.Seq, Time: ev.Time.UTC(), Value: r.Value, Unit: r.Unit, Tags: r.Tags})
	return nil
}

// Names returns the recorded metric names, sorted.
func (s *Series) Names() []string { return slices.Sorted(maps.Keys(s.points)) }

type snapshot struct {
	Version int                `json:"version"`
	Points  map[string][]Point `json:"points"`
}

// MarshalSnapshot encodes the state canonically (names and tag keys sorted
// by encoding/json, points in log order).
func (s *Series) MarshalSnapshot() ([]byte, error) {
	return json.Marshal(snapshot{Version: snapshotVersion, Points: s.points})
}

// UnmarshalSnapshot replaces the state with a decoded snapshot.
func (s *Series) UnmarshalSnapshot(data []byte) error {
	var snap snapshot
	if err := json.Unmarshal(data, &snap); err != nil {
		return fmt.Errorf("decode metrics snapshot: %w", err)
	}
	if snap.Version != snapshotVersion {
		return fmt.Errorf("decode metrics snapshot: version %d, want %d", snap.Version, snapshotVersion)
	}
	if snap.Points == nil {
		snap.Points = map[string][]Point{}
	}
	s.points = snap.Points
	return nil
}

// StateHash is the SHA-256 of MarshalSnapshot's canonical bytes.
func (s *Series) StateHash() [32]byte {
	data, err := s.MarshalSnapshot()
	if err != nil {
		panic(fmt.Sprintf("metrics: marshal state: %v", err))
	}
	return sha256.Sum256(data)
}

// pointsOf returns a copy of the points of name, in log order (for dumps).
func (s *Series) pointsOf(name string) []Point {
	pts := s.points[name]
	out := make([]Point, len(pts))
	for i, p := range pts {
		p.Tags = maps.Clone(p.Tags)
		out[i] = p
	}
	return out
}
