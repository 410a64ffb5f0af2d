package metrics

import (
	"maps"
	"slices"
	"strings"
)

// Summary is one metric as a listing shows it: how many points it has,
// its latest point and the few before it.
type Summary struct {
	Name string `json:"name"`
	// Count is the number of points recorded.
	Count int `json:"count"`
	// Unit is the unit of the latest point.
	Unit string `json:"unit,omitempty"`
	// Latest is the last point recorded (the highest seq).
	Latest Point `json:"latest"`
	// Recent are the last points recorded, newest first, Latest included.
	Recent []Point `json:"recent"`
}

// Summaries returns the metrics whose name starts with prefix ("" for
// all), sorted by name: at most limit of them (limit ≤ 0: all), each with
// its last recent points (at least 1), and the number that matched.
func (s *Series) Summaries(prefix string, limit, recent int) (out []Summary, matched int) {
	recent = max(recent, 1)
	for _, name := range slices.Sorted(maps.Keys(s.points)) {
		pts := s.points[name]
		if !strings.HasPrefix(name, prefix) || len(pts) == 0 {
			continue
		}
		matched++
		if limit > 0 && len(out) >= limit {
			continue
		}
		sm := Summary{Name: name, Count: len(pts), Unit: pts[len(pts)-1].Unit, Latest: clonePoint(pts[len(pts)-1])}
		for i := len(pts) - 1; i >= 0 && len(sm.Recent) < recent; i-- {
			sm.Recent = append(sm.Recent, clonePoint(pts[i]))
		}
		out = append(out, sm)
	}
	return out, matched
}

// clonePoint returns p with a tags map of its own.
func clonePoint(p Point) Point {
	p.Tags = maps.Clone(p.Tags)
	return p
}
