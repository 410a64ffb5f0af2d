package projections

import (
	"slices"
	"strings"
	"time"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/graph"
)

// IndexRun is the last index run the log records (graph.index_started,
// graph.index_finished): which folder, where it began, and whether and
// how it ended.
type IndexRun struct {
	// Root is the absolute folder indexed.
	Root string `json:"root"`
	// Name is the root's name in the graph's paths (graph.RootPath); ""
	// is the primary root, whose paths carry no name.
	Name string `json:"name,omitempty"`
	// Commit is the commit HEAD named when the run began (Root in a git
	// work tree), Dirty whether the files under Root then differed from
	// it; Targeted the number of paths a targeted run looked at (0: the
	// whole tree).
	Commit   string `json:"commit,omitempty"`
	Dirty    bool   `json:"dirty,omitempty"`
	Targeted int    `json:"targeted,omitempty"`
	// Started is where its graph.index_started is in the log.
	Started RunMark `json:"started"`
	// Finished is where its graph.index_finished is; zero (absent) while
	// none is recorded: the run is still appending, or its process was
	// killed and the graph holds part of the tree.
	Finished RunMark `json:"finished,omitzero"`
	// Error is why the run stopped early; empty when it indexed the whole
	// tree (or has not finished).
	Error string `json:"error,omitempty"`
	// FilesSeen is how many files the finished run covered; FilesChanged,
	// FilesRemoved and Events count what it appended.
	FilesSeen    int `json:"files_seen,omitempty"`
	FilesChanged int `json:"files_changed,omitempty"`
	FilesRemoved int `json:"files_removed,omitempty"`
	Events       int `json:"events,omitempty"`
}

// RunMark is an event of an index run: its seq and commit time.
type RunMark struct {
	Seq  uint64    `json:"seq"`
	Time time.Time `json:"time"`
}

// LastIndex returns the last index run the log records, of any root, and
// false when it records none (a log written before index runs were
// recorded, never indexed, or every root removed).
func (g *Graph) LastIndex() (IndexRun, bool) {
	if g.lastIndex == nil {
		return IndexRun{}, false
	}
	return *g.lastIndex, true
}

// Roots returns the last index run of each root the graph holds, ordered
// by name (the primary root, "", first); nil when none.
func (g *Graph) Roots() []IndexRun {
	out := make([]IndexRun, 0, len(g.roots))
	for _, r := range g.roots {
		out = append(out, *r)
	}
	slices.SortFunc(out, func(a, b IndexRun) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// applyIndexStarted records the start of a run of its root; it replaces
// that root's last run, finished or not, and becomes the last run.
func (g *Graph) applyIndexStarted(ev eventlog.Event) error {
	var p graph.IndexStarted
	if err := decode(ev.Data, &p); err != nil {
		return err
	}
	if p.Root == "" {
		return invalid("root is empty")
	}
	if p.Name != "" {
		if err := graph.ValidRootName(p.Name); err != nil {
			return invalid("%v", err)
		}
	}
	g.invalidate()
	g.lastIndex = &IndexRun{Root: p.Root, Name: p.Name, Commit: p.Commit, Dirty: p.Dirty, Targeted: p.Targeted,
		Started: RunMark{Seq: ev.Seq, Time: ev.Time.UTC()}}
	g.roots[p.Name] = g.lastIndex
	return nil
}

// applyRootRemoved forgets the root's runs; the last run becomes the
// latest run of the roots left (none when no root is left). Removing a
// root the graph does not hold changes nothing.
func (g *Graph) applyRootRemoved(ev eventlog.Event) error {
	var p graph.RootRemoved
	if err := decode(ev.Data, &p); err != nil {
		return err
	}
	if _, ok := g.roots[p.Name]; !ok {
		return nil
	}
	g.invalidate()
	delete(g.roots, p.Name)
	g.lastIndex = nil
	for _, r := range g.roots {
		if g.lastIndex == nil || r.Started.Seq > g.lastIndex.Started.Seq {
			g.lastIndex = r
		}
	}
	return nil
}

// applyIndexFinished records the end of the run that started at
// StartedSeq; the end of another (older) run changes nothing.
func (g *Graph) applyIndexFinished(ev eventlog.Event) error {
	var p graph.IndexFinished
	if err := decode(ev.Data, &p); err != nil {
		return err
	}
	r := g.roots[p.Name]
	if r == nil || r.Started.Seq != p.StartedSeq || r.Finished.Seq != 0 {
		return nil
	}
	g.invalidate()
	r.Finished, r.Error = RunMark{Seq: ev.Seq, Time: ev.Time.UTC()}, p.Error
	r.FilesSeen, r.FilesChanged, r.FilesRemoved, r.Events = p.FilesSeen, p.FilesChanged, p.FilesRemoved, p.Events
	return nil
}

// indexRunTag opens the optional last section of the canonical encoding,
// present only once the log records an index run (so the encoding, and
// StateHash, of a log without one are what they were before runs were
// recorded):
//
//	str "index-run", str root, uvarint started_seq, varint started (Unix ns),
//	uvarint finished_seq, varint finished (Unix ns, 0 when not finished),
//	str error, uvarint files_changed, uvarint files_removed, uvarint events
const indexRunTag = "index-run"

// indexRunGitTag opens the section after it, present only when the run
// records a commit, a dirty tree, a targeted run or a file count (so runs
// recorded before these fields encode as they did):
//
//	str "index-run-git", str commit, uvarint dirty (0|1), uvarint targeted,
//	uvarint files_seen
const indexRunGitTag = "index-run-git"

// indexRootsTag opens the section after those, present only when a root
// other than the primary one is or was indexed (so a one-root graph
// encodes as it did before roots had names):
//
//	str "index-roots", str name of the last run's root, uvarint n,
//	then n times: str name, and the run as the two sections above
//	without their tags (the git fields always written)
const indexRootsTag = "index-roots"

func (g *Graph) encodeIndexRun(e *encoder) {
	r := g.lastIndex
	if r == nil {
		return
	}
	encodeRun(e, r, false)
	if len(g.roots) == 1 && r.Name == "" {
		return
	}
	e.str(indexRootsTag)
	e.str(r.Name)
	others := make([]*IndexRun, 0, len(g.roots))
	for _, o := range g.roots {
		if o != r {
			others = append(others, o)
		}
	}
	slices.SortFunc(others, func(a, b *IndexRun) int { return strings.Compare(a.Name, b.Name) })
	e.uvarint(uint64(len(others)))
	for _, o := range others {
		e.str(o.Name)
		encodeRun(e, o, true)
	}
}

// encodeRun writes r as the index-run section (with its tags, the git
// section only when it has something to say) or, bare, as a root of the
// index-roots section.
func encodeRun(e *encoder, r *IndexRun, bare bool) {
	if !bare {
		e.str(indexRunTag)
	}
	e.str(r.Root)
	e.uvarint(r.Started.Seq)
	e.varint(unixNano(r.Started.Time))
	e.uvarint(r.Finished.Seq)
	e.varint(unixNano(r.Finished.Time))
	e.str(r.Error)
	e.uvarint(uint64(r.FilesChanged))
	e.uvarint(uint64(r.FilesRemoved))
	e.uvarint(uint64(r.Events))
	if !bare {
		if r.Commit == "" && !r.Dirty && r.Targeted == 0 && r.FilesSeen == 0 {
			return
		}
		e.str(indexRunGitTag)
	}
	e.str(r.Commit)
	dirty := uint64(0)
	if r.Dirty {
		dirty = 1
	}
	e.uvarint(dirty)
	e.uvarint(uint64(r.Targeted))
	e.uvarint(uint64(r.FilesSeen))
}

func (g *Graph) decodeIndexRun(d *decoder) {
	if d.err != nil || len(d.b) == 0 {
		return
	}
	if tag := d.str(); tag != indexRunTag {
		d.fail("graph section (unknown trailing section)")
		return
	}
	r := decodeRun(d)
	tag := ""
	if d.err == nil && len(d.b) != 0 {
		tag = d.str()
	}
	if tag == indexRunGitTag {
		decodeRunGit(d, r)
		tag = ""
		if d.err == nil && len(d.b) != 0 {
			tag = d.str()
		}
	}
	roots := map[string]*IndexRun{}
	switch tag {
	case "":
	case indexRootsTag:
		r.Name = d.str()
		n := d.count(2)
		for i := 0; i < n && d.err == nil; i++ {
			name := d.str()
			o := decodeRun(d)
			decodeRunGit(d, o)
			o.Name = name
			roots[name] = o
		}
	default:
		d.fail("graph section (unknown trailing section)")
		return
	}
	if d.err == nil {
		roots[r.Name] = r
		g.lastIndex, g.roots = r, roots
	}
}

// decodeRun reads the fields of the index-run section after its tag.
func decodeRun(d *decoder) *IndexRun {
	r := &IndexRun{Root: d.str()}
	r.Started.Seq, r.Started.Time = d.uvarint(), fromUnixNano(d.varint())
	r.Finished.Seq, r.Finished.Time = d.uvarint(), fromUnixNano(d.varint())
	r.Error = d.str()
	r.FilesChanged, r.FilesRemoved, r.Events = int(d.uvarint()), int(d.uvarint()), int(d.uvarint())
	return r
}

// decodeRunGit reads the fields of the index-run-git section after its
// tag into r.
func decodeRunGit(d *decoder, r *IndexRun) {
	r.Commit = d.str()
	switch d.uvarint() {
	case 0:
	case 1:
		r.Dirty = true
	default:
		d.fail("graph section (index run dirty flag)")
		return
	}
	r.Targeted, r.FilesSeen = int(d.uvarint()), int(d.uvarint())
}

func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func fromUnixNano(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}
