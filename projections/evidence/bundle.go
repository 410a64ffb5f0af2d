package evidence

import (
	"cmp"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/projections"
)

// Name is the projection's name and snapshot section key.
const Name = "evidence"

const snapshotVersion = 1

// Entry is one recorded output or accumulator item.
type Entry struct {
	Seq    uint64          `json:"seq"`
	Time   time.Time       `json:"time"`
	Output json.RawMessage `json:"output"`
	// Task is the record's code reference, when it was made for a task.
	Task *TaskRef `json:"task,omitempty"`
}

// Bundle is the evidence of one session: one
// slot per role holding that role's outputs in log order, plus the
// backtracks, discoveries and degraded_formulas accumulators. Tasks maps
// each task id a record referenced to the latest reference (the record of
// highest seq); it is omitted while no record names a task, so a bundle
// without references encodes (and hashes) as it always did. Revision and
// Hash are the stream's, as for any entity (docs/errors.md, CAS).
type Bundle struct {
	SessionID        string             `json:"session_id"`
	Roles            map[string][]Entry `json:"roles"`
	Backtracks       []Entry            `json:"backtracks"`
	Discoveries      []Entry            `json:"discoveries"`
	DegradedFormulas []Entry            `json:"degraded_formulas"`
	Tasks            map[string]TaskRef `json:"tasks,omitempty"`
	Revision         uint64             `json:"revision"`
	Hash             string             `json:"hash"`
	CreatedAt        time.Time          `json:"created_at"`
	UpdatedAt        time.Time          `json:"updated_at"`
}

// Count returns the number of entries in all slots and accumulators.
func (b Bundle) Count() int {
	n := len(b.Backtracks) + len(b.Discoveries) + len(b.DegradedFormulas)
	for _, es := range b.Roles {
		n += len(es)
	}
	return n
}

func (b *Bundle) clone() Bundle {
	c := *b
	c.Roles = make(map[string][]Entry, len(b.Roles))
	for k, v := range b.Roles {
		c.Roles[k] = cloneEntries(v)
	}
	c.Backtracks = cloneEntries(b.Backtracks)
	c.Discoveries = cloneEntries(b.Discoveries)
	c.DegradedFormulas = cloneEntries(b.DegradedFormulas)
	if b.Tasks != nil {
		c.Tasks = make(map[string]TaskRef, len(b.Tasks))
		for id, r := range b.Tasks {
			c.Tasks[id] = *r.clone()
		}
	}
	return c
}

// cloneEntries copies es and the references its entries hold.
func cloneEntries(es []Entry) []Entry {
	c := slices.Clone(es)
	for i := range c {
		c[i].Task = c[i].Task.clone()
	}
	return c
}

// Bundles is the evidence projection: a Bundle per session, folded from the
// evidence:* streams. It does not consult the role registry (which may
// change between runs): it checks only the structure of each record, so the
// state is a function of the log alone.
type Bundles struct {
	sessions map[string]*Bundle
}

var _ projections.Projection = (*Bundles)(nil)

// NewBundles returns an empty projection.
func NewBundles() *Bundles { return &Bundles{sessions: map[string]*Bundle{}} }

// Name returns "evidence".
func (p *Bundles) Name() string { return Name }

// Apply folds one event of an evidence:* stream; other events are ignored.
// A record that is not an object, an output without a role, or a task
// reference that fails its structural check (TaskRef) is an error and
// changes nothing but the bundle's revision and hash. The reference is
// not checked against the board: it is the record's payload, read by the
// tool at its seq.
func (p *Bundles) Apply(ev eventlog.Event) error {
	if !strings.HasPrefix(ev.Stream, StreamPrefix) {
		return nil
	}
	kind, ok := kindOfType[ev.Type]
	if !ok {
		return nil
	}
	session, ok := SessionOfStream(ev.Stream)
	if !ok {
		return fmt.Errorf("apply %s seq %d: stream %q: %w", ev.Type, ev.Seq, ev.Stream, ErrInvalidSession)
	}
	b := p.sessions[session]
	if b == nil {
		b = &Bundle{SessionID: session, Roles: map[string][]Entry{}, Backtracks: []Entry{}, Discoveries: []Entry{},
			DegradedFormulas: []Entry{}, CreatedAt: ev.Time.UTC()}
		p.sessions[session] = b
	}
	b.Revision, b.Hash, b.UpdatedAt = ev.Revision, ev.Hash, ev.Time.UTC()
	var rec Record
	if err := json.Unmarshal(ev.Data, &rec); err != nil {
		return fmt.Errorf("apply %s seq %d: decode record: %w", ev.Type, ev.Seq, err)
	}
	out, err := canonicalJSON(rec.Output)
	if err != nil || len(out) == 0 || out[0] != '{' {
		return fmt.Errorf("apply %s seq %d: output is not a JSON object", ev.Type, ev.Seq)
	}
	if kind == KindOutput && rec.Role == "" {
		return fmt.Errorf("apply %s seq %d: output without a role", ev.Type, ev.Seq)
	}
	if rec.Task != nil {
		if err := rec.Task.check(ev.Seq); err != nil {
			return fmt.Errorf("apply %s seq %d: %w", ev.Type, ev.Seq, err)
		}
		rec.Task.Files, rec.Task.Symbols = nonNilStrings(rec.Task.Files), nonNilStrings(rec.Task.Symbols)
		if b.Tasks == nil {
			b.Tasks = map[string]TaskRef{}
		}
		b.Tasks[rec.Task.TaskID] = *rec.Task.clone()
	}
	e := Entry{Seq: ev.Seq, Time: ev.Time.UTC(), Output: out, Task: rec.Task}
	switch kind {
	case KindOutput:
		b.Roles[rec.Role] = append(b.Roles[rec.Role], e)
	case KindBacktrack:
		b.Backtracks = append(b.Backtracks, e)
	case KindDiscovery:
		b.Discoveries = append(b.Discoveries, e)
	case KindDegradedFormula:
		b.DegradedFormulas = append(b.DegradedFormulas, e)
	}
	return nil
}

// Get returns a copy of the session's bundle; ErrNotFound when the session
// has recorded nothing.
func (p *Bundles) Get(session string) (Bundle, error) {
	if err := ValidateSession(session); err != nil {
		return Bundle{}, err
	}
	b, ok := p.sessions[session]
	if !ok {
		return Bundle{}, fmt.Errorf("%w: %q", ErrNotFound, session)
	}
	return b.clone(), nil
}

// Sessions returns the session ids, sorted.
func (p *Bundles) Sessions() []string { return slices.Sorted(maps.Keys(p.sessions)) }

type snapshot struct {
	Version int       `json:"version"`
	Bundles []*Bundle `json:"bundles"`
}

// MarshalSnapshot encodes the bundles canonically: sessions sorted, role
// slots as a JSON object (sorted keys), outputs in canonical JSON.
func (p *Bundles) MarshalSnapshot() ([]byte, error) {
	s := snapshot{Version: snapshotVersion, Bundles: make([]*Bundle, 0, len(p.sessions))}
	for _, id := range p.Sessions() {
		s.Bundles = append(s.Bundles, p.sessions[id])
	}
	return json.Marshal(s)
}

// UnmarshalSnapshot replaces the state with a decoded snapshot.
func (p *Bundles) UnmarshalSnapshot(data []byte) error {
	var s snapshot
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("decode evidence snapshot: %w", err)
	}
	if s.Version != snapshotVersion {
		return fmt.Errorf("decode evidence snapshot: version %d, want %d", s.Version, snapshotVersion)
	}
	sessions := make(map[string]*Bundle, len(s.Bundles))
	for _, b := range s.Bundles {
		if b == nil || ValidateSession(b.SessionID) != nil {
			return fmt.Errorf("decode evidence snapshot: bad bundle")
		}
		if b.Roles == nil {
			b.Roles = map[string][]Entry{}
		}
		b.Backtracks, b.Discoveries, b.DegradedFormulas = nonNil(b.Backtracks), nonNil(b.Discoveries), nonNil(b.DegradedFormulas)
		sessions[b.SessionID] = b
	}
	p.sessions = sessions
	return nil
}

// StateHash is the SHA-256 of MarshalSnapshot's canonical bytes.
func (p *Bundles) StateHash() [32]byte {
	data, err := p.MarshalSnapshot()
	if err != nil {
		panic(fmt.Sprintf("evidence: marshal state: %v", err))
	}
	return sha256.Sum256(data)
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func nonNil(e []Entry) []Entry {
	if e == nil {
		return []Entry{}
	}
	return e
}

// WithSlots returns a copy of b with an empty slot for every role in roles
// that has none, so that a reader sees one slot per registered role (pass
// Registry.RoleIDs()). The projection itself keeps only slots that hold
// records, since the registry is configuration, not log.
func (b Bundle) WithSlots(roles []string) Bundle {
	c := b.clone()
	for _, r := range roles {
		if _, ok := c.Roles[r]; !ok {
			c.Roles[r] = []Entry{}
		}
	}
	return c
}

// TaskAt returns a copy of the task reference of the record at seq; nil
// when the bundle holds no record at seq or it names no task.
func (b Bundle) TaskAt(seq uint64) *TaskRef {
	for _, es := range append([][]Entry{b.Backtracks, b.Discoveries, b.DegradedFormulas}, slices.Collect(maps.Values(b.Roles))...) {
		if i, ok := slices.BinarySearchFunc(es, seq, func(e Entry, s uint64) int { return cmp.Compare(e.Seq, s) }); ok {
			return es[i].Task.clone()
		}
	}
	return nil
}
