package acc

import (
	"sort"
	"strconv"
)

// Site is where an edge was found: a file relative to the measured folder
// and a 1-based line.
type Site struct {
	File string `json:"file"`
	Line int    `json:"line"`
}

func (s Site) String() string { return s.File + ":" + strconv.Itoa(s.Line) }

// SiteLess orders sites by file, then line.
func SiteLess(a, b Site) bool {
	if a.File != b.File {
		return a.File < b.File
	}
	return a.Line < b.Line
}

// Ratio is Hit/Of as a Share between 0 and 1; -1 when Of is 0 (printed
// "–" by Pct).
type Ratio struct {
	Hit   int     `json:"hit"`
	Of    int     `json:"of"`
	Share float64 `json:"share"`
}

// NewRatio returns hit/of.
func NewRatio(hit, of int) Ratio {
	r := Ratio{Hit: hit, Of: of, Share: -1}
	if of > 0 {
		r.Share = float64(hit) / float64(of)
	}
	return r
}

// EdgeNote is one edge of a miss or false-positive list.
type EdgeNote struct {
	Caller string `json:"caller"`
	Callee string `json:"callee"`
	Site   Site   `json:"site"`
	// Code is the site's source line, where the harness reads it.
	Code  string   `json:"code,omitempty"`
	Sites int      `json:"sites,omitempty"`
	Tags  []string `json:"tags,omitempty"`
}

// TopNotes sorts notes by sites (most first), then place, and keeps n.
func TopNotes(notes []EdgeNote, n int) []EdgeNote {
	sort.Slice(notes, func(i, j int) bool {
		a, b := notes[i], notes[j]
		if a.Sites != b.Sites {
			return a.Sites > b.Sites
		}
		if a.Site != b.Site {
			return SiteLess(a.Site, b.Site)
		}
		if a.Caller != b.Caller {
			return a.Caller < b.Caller
		}
		return a.Callee < b.Callee
	})
	if len(notes) > n {
		notes = notes[:n]
	}
	return notes
}
