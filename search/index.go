package search

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/gofrs/flock"

	"github.com/cos-dev/cos/graph"
)

// DefaultMaxSlots is Options.MaxSlots when zero: how many processes sharing
// one state folder can each hold an index.
const DefaultMaxSlots = 64

// DefaultSearchLimit is the number of candidates Search returns when limit
// is zero or negative; MaxSearchLimit caps it.
const (
	DefaultSearchLimit = 10
	MaxSearchLimit     = 1000
)

// formatVersion is stored in each index; an index with another version (or
// none) is wiped and rebuilt from seq 0, except formatWithoutNameExact.
// Bump it when the mapping, the analyzer or the document shape changes.
//
// Version 4 added the name_exact field (mapping.go). A version-3 index is
// still read as it is, without rebuilding it: the fields it has mean what
// they meant, and the resolver ranks its exact tier without name_exact
// (the same answers, found with more hits looked at).
const (
	formatVersion          = "4"
	formatWithoutNameExact = "3"
)

// Internal keys, stored with the documents in the same batch.
var (
	keySeq    = []byte("cos.seq")
	keyFormat = []byte("cos.format")
)

// Options configure OpenIndex.
type Options struct {
	// Dir is the folder holding the slot folders; cos passes
	// <state-dir>/search. Created (0o755) when missing. Required.
	Dir string
	// Logger receives slot and rebuild notices; nil discards them.
	Logger *slog.Logger
	// MaxSlots bounds the slots tried, 1..4096; zero means DefaultMaxSlots.
	MaxSlots int
	// FlushDelay is how long a Stage may wait before it is written: staged
	// batches within it become one bleve batch (one segment, one fsync).
	// Zero means DefaultFlushDelay; negative means every Stage is written
	// before it returns, like Apply. Searches never wait for it: they write
	// what is staged first.
	FlushDelay time.Duration
	// MaxStaged is how many staged uids make Stage write at once rather than
	// wait for FlushDelay; zero means DefaultMaxStaged.
	MaxStaged int
}

// Validate reports a missing Dir or an out-of-range MaxSlots, wrapping
// ErrInvalidOptions.
func (o Options) Validate() error {
	switch {
	case o.Dir == "":
		return fmt.Errorf("%w: Dir is required", ErrInvalidOptions)
	case o.MaxSlots < 0 || o.MaxSlots > 4096:
		return fmt.Errorf("%w: MaxSlots %d out of range 0..4096", ErrInvalidOptions, o.MaxSlots)
	case o.MaxStaged < 0:
		return fmt.Errorf("%w: MaxStaged %d below 0", ErrInvalidOptions, o.MaxStaged)
	}
	return nil
}

func (o Options) withDefaults() Options {
	if o.MaxSlots == 0 {
		o.MaxSlots = DefaultMaxSlots
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.FlushDelay == 0 {
		o.FlushDelay = DefaultFlushDelay
	}
	if o.MaxStaged == 0 {
		o.MaxStaged = DefaultMaxStaged
	}
	return o
}

// Candidate is one node an index search or a resolution found.
type Candidate struct {
	UID   string `json:"uid"`
	Kind  string `json:"kind"`
	Label string `json:"label"`
	Path  string `json:"path,omitempty"`
	// Score: from Index methods, bleve's score, comparable between
	// candidates of one Match. From the Resolver (its candidates, errors
	// and Candidates), the rank of the match (see the Match* constants)
	// plus a fraction below 1 that orders within it: higher is better,
	// comparable between the candidates of one query only.
	Score float64 `json:"score"`
	// Match is how the node matched. From Index methods, the tier of
	// query.go: "exact", "whole", "words", "typos", or "any_word"
	// (Suggest only). From the Resolver, one of the Match* kinds: "uid",
	// "path", "exact", "bare_name", … (the Match* constants, best first).
	Match string `json:"match"`
}

// Index is one process's bleve scorch index of graph nodes, kept on disk in a
// slot folder it holds a lock on, checkpointed by log seq.
//
// All methods are safe for concurrent use. Apply calls are serialised with
// each other; Search, Suggest and lookup run beside them and see each batch
// whole or not at all.
//
// The caller feeding it (the tailer) applies the graph events after
// Checkpoint only, and should group them: every Apply is one scorch segment
// and one fsync, so one Apply per event is far slower than one per batch of
// events. Stage groups them itself (stage.go).
type Index struct {
	log  *slog.Logger
	slot int
	dir  string // the slot folder
	lock *flock.Flock

	flushDelay time.Duration
	maxStaged  int

	// applyMu serialises Apply and flushes so checkpoints only move
	// forward, and guards staged and stagedSeq.
	applyMu   sync.Mutex
	staged    map[string]*graph.Node // uid → node to index, nil to delete
	stagedSeq uint64                 // the checkpoint staged holds; 0 when nothing is staged
	// hasStaged is set while staged holds anything, so a search checks it
	// without applyMu.
	hasStaged atomic.Bool

	// kick wakes the flusher after a Stage; stop ends it and flusher
	// waits for it (Close).
	kick     chan struct{}
	stop     chan struct{}
	flusher  sync.WaitGroup
	stopOnce sync.Once

	// mu guards bi: read-held by every operation, write-held by Close, which
	// sets bi to nil. Lock order: applyMu, then mu.
	mu sync.RWMutex
	bi bleve.Index

	// nameExact is set when the index holds the name_exact field (format
	// 4 on): the resolver may filter its exact tier by case-sensitive bare
	// name. Set at open, read-only after.
	nameExact bool

	seq atomic.Uint64
}

// OpenIndex claims the lowest free slot under opts.Dir and opens its index,
// or creates an empty one (checkpoint 0) when the slot is new, unreadable or
// of another format version (logged). It returns ErrNoSlot when every slot is
// held, and ctx's error when ctx ends while slots are tried.
func OpenIndex(ctx context.Context, opts Options) (*Index, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	opts = opts.withDefaults()
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("open search index: %w", err)
	}
	n, lock, err := claimSlot(ctx, opts.Dir, opts.MaxSlots)
	if err != nil {
		return nil, fmt.Errorf("open search index: %w", err)
	}
	ix := &Index{log: opts.Logger.With("slot", n), slot: n, dir: slotDir(opts.Dir, n), lock: lock,
		flushDelay: opts.FlushDelay, maxStaged: opts.MaxStaged, staged: map[string]*graph.Node{},
		kick: make(chan struct{}, 1), stop: make(chan struct{})}
	bi, seq, format, err := ix.openSlot()
	if err != nil {
		_ = lock.Unlock()
		return nil, fmt.Errorf("open search index slot %d: %w", n, err)
	}
	ix.bi = bi
	ix.nameExact = format != formatWithoutNameExact
	ix.seq.Store(seq)
	ix.log.Debug("search index open", "dir", ix.dir, "checkpoint", seq)
	if ix.flushDelay > 0 {
		ix.flusher.Add(1)
		go ix.runFlusher()
	}
	return ix, nil
}

// openSlot opens the slot's index and reads its checkpoint and format
// version, rebuilding it empty when it is missing or unusable.
func (ix *Index) openSlot() (bleve.Index, uint64, string, error) {
	if _, err := os.Stat(ix.dir); err == nil {
		bi, seq, format, err := openExisting(ix.dir)
		if err == nil {
			return bi, seq, format, nil
		}
		ix.log.Warn("search index unusable, rebuilding from seq 0", "dir", ix.dir, "err", err)
		if err := os.RemoveAll(ix.dir); err != nil {
			return nil, 0, "", err
		}
	}
	bi, err := bleve.NewUsing(ix.dir, newMapping(), scorch.Name, bleve.Config.DefaultKVStore, nil)
	if err != nil {
		return nil, 0, "", err
	}
	b := bi.NewBatch()
	b.SetInternal(keyFormat, []byte(formatVersion))
	b.SetInternal(keySeq, encodeSeq(0))
	if err := bi.Batch(b); err != nil {
		_ = bi.Close()
		return nil, 0, "", err
	}
	return bi, 0, formatVersion, nil
}

func openExisting(dir string) (bleve.Index, uint64, string, error) {
	bi, err := bleve.Open(dir)
	if err != nil {
		return nil, 0, "", err
	}
	fail := func(err error) (bleve.Index, uint64, string, error) {
		_ = bi.Close()
		return nil, 0, "", err
	}
	format, err := bi.GetInternal(keyFormat)
	if err != nil {
		return fail(err)
	}
	if f := string(format); f != formatVersion && f != formatWithoutNameExact {
		return fail(fmt.Errorf("format %q, want %q", format, formatVersion))
	}
	raw, err := bi.GetInternal(keySeq)
	if err != nil {
		return fail(err)
	}
	seq, err := decodeSeq(raw)
	if err != nil {
		return fail(err)
	}
	return bi, seq, string(format), nil
}

func encodeSeq(seq uint64) []byte { return binary.BigEndian.AppendUint64(nil, seq) }

func decodeSeq(b []byte) (uint64, error) {
	if len(b) != 8 {
		return 0, fmt.Errorf("checkpoint is %d bytes, want 8", len(b))
	}
	return binary.BigEndian.Uint64(b), nil
}

// Slot returns the number N of the slot folder slot-N this index holds.
func (ix *Index) Slot() int { return ix.slot }

// Checkpoint returns the seq stored by the last successful Apply (0 for a new
// or rebuilt index): every event up to it is reflected in the index. The
// caller (the tailer) replays events after it.
func (ix *Index) Checkpoint() uint64 { return ix.seq.Load() }

// Apply indexes upserts (replacing documents with the same uid), removes the
// documents of deletes (unknown uids are ignored) and stores seq as the
// checkpoint, all in one batch that is on disk when Apply returns. A uid in
// both lists ends deleted. It returns ErrSeqBackwards when seq is below
// Checkpoint (an equal seq is allowed, so a batch can be re-applied),
// ErrClosed after Close, and ctx's error when ctx ended before the batch
// began; the batch itself is not interruptible.
func (ix *Index) Apply(ctx context.Context, upserts []graph.Node, deletes []string, seq uint64) error {
	ix.applyMu.Lock()
	defer ix.applyMu.Unlock()
	if err := ix.checkSeq(seq); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	ix.stageLocked(upserts, deletes, seq)
	return ix.flushLocked()
}

// docCount returns the number of nodes in the index.
func (ix *Index) docCount() (uint64, error) {
	if err := ix.flushStaged(); err != nil {
		return 0, err
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.bi == nil {
		return 0, ErrClosed
	}
	return ix.bi.DocCount()
}

// Search returns up to limit nodes matching q, of the given kinds (all kinds
// when empty), in the order of the tiers of query.go — exact label or bare
// name, whole-label prefix or typos (up to two), every word as a word or
// prefix, every word within its typo budget — and by score within a tier,
// ties by uid. Candidate.Match names the tier. Later tiers run only while
// fewer than limit nodes were found. limit ≤ 0 means DefaultSearchLimit; it
// is capped at MaxSearchLimit. An empty q matches nothing. It returns
// ErrClosed after Close and ctx's error when ctx ends.
func (ix *Index) Search(ctx context.Context, q string, kinds []string, limit int) ([]Candidate, error) {
	limit = clampLimit(limit)
	var out []Candidate
	for tier := range tierCount {
		if len(out) >= limit {
			break
		}
		found, err := ix.searchTier(ctx, tierSearch{tier: tier, q: q, kinds: kinds, limit: limit, typos: true, fields: true})
		if err != nil {
			return nil, err
		}
		out = appendNew(out, found...)
	}
	return out[:min(len(out), limit)], nil
}

// Suggest is Search widened for "did you mean": when the tiers find fewer
// than limit nodes, nodes sharing any one word with q (Match "any_word")
// follow. Arguments and errors are Search's.
func (ix *Index) Suggest(ctx context.Context, q string, kinds []string, limit int) ([]Candidate, error) {
	limit = clampLimit(limit)
	out, err := ix.Search(ctx, q, kinds, limit)
	if err != nil || len(out) >= limit {
		return out, err
	}
	more, err := ix.anyWord(ctx, q, kinds, limit)
	if err != nil {
		return nil, err
	}
	out = appendNew(out, more...)
	return out[:min(len(out), limit)], nil
}

// anyWord returns the nodes sharing at least one word with q.
func (ix *Index) anyWord(ctx context.Context, q string, kinds []string, limit int) ([]Candidate, error) {
	query := anyWordQuery(q)
	if query == nil {
		return nil, nil
	}
	return ix.run(ctx, withKinds(query, kinds), limit, matchAnyWord, true)
}

// lookup returns up to limit nodes whose label or bare name (see nameKeys:
// the part after "::" and its last dotted segment, a file's base name, a
// package's name) equals name, ignoring case, labels first (the "exact"
// tier). limit ≤ 0 means DefaultSearchLimit. Errors are Search's.
func (ix *Index) lookup(ctx context.Context, name string, limit int) ([]Candidate, error) {
	return ix.searchTier(ctx, tierSearch{tier: tierExact, q: name, limit: clampLimit(limit), typos: true, fields: true})
}

// matchAnyWord is Candidate.Match of Suggest's widest net.
const matchAnyWord = MatchAnyWord

// tierSearch is one search of one tier of query.go.
type tierSearch struct {
	tier  int
	q     string
	kinds []string // only these kinds (any when empty)
	limit int
	// typos keeps the tier's typo matches (tierQuery).
	typos bool
	// fields loads each hit's kind, label and path from the index; without
	// it a Candidate holds only its uid, score and match (the resolver reads
	// the rest from its NodeSource, and loading stored fields is a quarter
	// of a lookup's cost).
	fields bool
}

// searchTier runs one tier of query.go.
func (ix *Index) searchTier(ctx context.Context, s tierSearch) ([]Candidate, error) {
	query := tierQuery(s.tier, s.q, s.typos)
	if query == nil {
		return nil, nil
	}
	return ix.run(ctx, withKinds(query, s.kinds), s.limit, tierNames[s.tier], s.fields)
}

func clampLimit(limit int) int {
	if limit <= 0 {
		return DefaultSearchLimit
	}
	return min(limit, MaxSearchLimit)
}

// appendNew appends the candidates whose uid is not in out yet.
func appendNew(out []Candidate, cs ...Candidate) []Candidate {
	for _, c := range cs {
		if !slices.ContainsFunc(out, func(have Candidate) bool { return have.UID == c.UID }) {
			out = append(out, c)
		}
	}
	return out
}

func (ix *Index) run(ctx context.Context, q queryT, limit int, match string, fields bool) ([]Candidate, error) {
	// bleve allocates room for size hits before it collects any: a large
	// limit (the resolver's pool) is asked for only when more hits match
	// than a first, small search holds, and then for as many as match.
	out, total, err := ix.page(ctx, q, min(limit, firstSearchSize), match, fields)
	if err == nil && total > uint64(len(out)) && limit > firstSearchSize {
		out, _, err = ix.page(ctx, q, int(min(uint64(limit), total)), match, fields)
	}
	return out, err
}

// page runs q once for its size best hits (score, highest first, then uid)
// and returns them with the number of documents q matches. fields is
// tierSearch.fields.
func (ix *Index) page(ctx context.Context, q queryT, size int, match string, fields bool) ([]Candidate, uint64, error) {
	// Read your writes: what is staged is written before the search.
	if err := ix.flushStaged(); err != nil {
		return nil, 0, err
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.bi == nil {
		return nil, 0, ErrClosed
	}
	req := bleve.NewSearchRequestOptions(q, size, 0, false)
	// Score, then uid: the top hits are the same whatever the segments
	// (ties at the cut would otherwise follow segment order, which a
	// merge or another process's index changes).
	req.SortBy(topKOrder)
	if fields {
		req.Fields = []string{fieldKind, fieldLabel, fieldPath}
	}
	res, err := ix.bi.SearchInContext(ctx, req)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, 0, ctxErr
		}
		return nil, 0, fmt.Errorf("search index: %w", err)
	}
	out := make([]Candidate, 0, len(res.Hits))
	for _, h := range res.Hits {
		c := Candidate{UID: h.ID, Score: h.Score, Match: match}
		c.Kind, _ = h.Fields[fieldKind].(string)
		c.Label, _ = h.Fields[fieldLabel].(string)
		c.Path, _ = h.Fields[fieldPath].(string)
		out = append(out, c)
	}
	sortCandidates(out)
	return out, res.Total, nil
}

// firstSearchSize is how many hits run asks bleve for first; a larger
// limit is searched again when more match (the answer is the same).
const firstSearchSize = 64

// topKOrder is the order bleve collects a search's hits in: score, highest
// first, then document id (the uid) ascending.
var topKOrder = []string{"-_score", "_id"}

// sortCandidates orders by score, highest first, then uid, so equal scores
// come out the same in every process.
func sortCandidates(cs []Candidate) {
	sort.SliceStable(cs, func(i, j int) bool {
		if cs[i].Score != cs[j].Score {
			return cs[i].Score > cs[j].Score
		}
		return cs[i].UID < cs[j].UID
	})
}

// Close writes what is staged, merges the index into one segment when this
// process indexed a bulk (CompactMinUpdates documents), closes the index and
// releases its slot. It stops the flusher, waits for a running Apply to finish and for bleve's
// background persisting and merging to stop. Calling it again returns nil.
func (ix *Index) Close() error {
	ix.stopOnce.Do(func() { close(ix.stop) })
	ix.flusher.Wait()
	ix.applyMu.Lock()
	defer ix.applyMu.Unlock()
	ferr := ix.flushLocked()
	if errors.Is(ferr, ErrClosed) {
		ferr = nil
	}
	if ferr == nil && ix.compactOnClose() {
		// A bulk (an index run) ends here: the next process to take the
		// slot searches one segment. A failed merge leaves the segments.
		if err := ix.compactLocked(context.Background()); err != nil {
			ix.log.Warn("search index not merged", "err", err)
		}
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.bi == nil {
		return nil
	}
	err := errors.Join(ferr, ix.bi.Close())
	ix.bi = nil
	if uerr := ix.lock.Unlock(); uerr != nil {
		err = errors.Join(err, fmt.Errorf("unlock search slot: %w", uerr))
	}
	return err
}
