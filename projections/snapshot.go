package projections

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/internal/atomicfile"
)

// snapMagic opens every snapshot file; its last byte is the format version.
const snapMagic = "COSSNAP\x01"

// A snapshot file, <StateDir>/snapshots/snap-<seq, 20 digits>.bin:
//
//	8 bytes  "COSSNAP\x01"
//	uvarint  seq covered (every event ≤ seq applied, none after)
//	str      hash of the event at seq (its Event.Hash), to tell logs apart
//	varint   time of the event at seq, Unix nanoseconds
//	uvarint  n sections, then per projection: str name, bytes data
//	         (MarshalSnapshot), in the tailer's projection order
//	32 bytes SHA-256 of everything above
//
// str and bytes are uvarint length + bytes. Files are written to a temp file
// in the same folder, fsynced, renamed into place and the folder fsynced, so
// a reader sees a whole file or none; a file that fails any check is skipped.

const (
	snapPrefix = "snap-"
	snapSuffix = ".bin"
	tmpSuffix  = ".tmp"
	// staleTempAge is how old a leftover temp file must be before pruning
	// removes it (a younger one may belong to a writer in another process).
	staleTempAge = time.Hour
)

// snapshot is a decoded snapshot file.
type snapshot struct {
	pos      Position
	sections map[string][]byte
}

func snapshotName(seq uint64) string {
	return fmt.Sprintf("%s%020d%s", snapPrefix, seq, snapSuffix)
}

// encodeSnapshot builds a snapshot file's bytes.
func encodeSnapshot(pos Position, names []string, sections [][]byte) []byte {
	var buf bytes.Buffer
	buf.WriteString(snapMagic)
	e := &encoder{w: &buf}
	e.uvarint(pos.Seq)
	e.str(pos.Hash)
	e.varint(pos.Time.UnixNano())
	e.uvarint(uint64(len(names)))
	for i, n := range names {
		e.str(n)
		e.bytes(sections[i])
	}
	sum := sha256.Sum256(buf.Bytes())
	buf.Write(sum[:])
	return buf.Bytes()
}

// decodeSnapshot checks and decodes a snapshot file's bytes; every failure
// wraps ErrBadSnapshot.
func decodeSnapshot(b []byte) (snapshot, error) {
	if len(b) < len(snapMagic)+sha256.Size || string(b[:len(snapMagic)]) != snapMagic {
		return snapshot{}, fmt.Errorf("%w: bad magic or too short (%d bytes)", ErrBadSnapshot, len(b))
	}
	body, sum := b[:len(b)-sha256.Size], b[len(b)-sha256.Size:]
	if got := sha256.Sum256(body); !bytes.Equal(got[:], sum) {
		return snapshot{}, fmt.Errorf("%w: checksum mismatch", ErrBadSnapshot)
	}
	d := &decoder{b: body[len(snapMagic):]}
	s := snapshot{sections: make(map[string][]byte)}
	s.pos.Seq = d.uvarint()
	s.pos.Hash = d.str()
	s.pos.Time = time.Unix(0, d.varint()).UTC()
	for n := d.count(2); n > 0 && d.err == nil; n-- {
		name := d.str()
		s.sections[name] = d.bytes()
	}
	if d.err == nil && len(d.b) != 0 {
		d.fail("snapshot (trailing bytes)")
	}
	if d.err != nil {
		return snapshot{}, d.err
	}
	return s, nil
}

// writeSnapshotFile writes data as dir/snap-<seq>.bin durably: temp file →
// fsync → rename → fsync dir. It returns the final path.
func writeSnapshotFile(dir string, seq uint64, data []byte) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("create snapshot folder: %w", err)
	}
	f, err := os.CreateTemp(dir, snapPrefix+"*"+tmpSuffix)
	if err != nil {
		return "", fmt.Errorf("create snapshot temp file: %w", err)
	}
	tmp := f.Name()
	fail := func(what string, err error) (string, error) {
		f.Close()
		os.Remove(tmp)
		return "", fmt.Errorf("%s snapshot %s: %w", what, tmp, err)
	}
	if _, err := f.Write(data); err != nil {
		return fail("write", err)
	}
	if err := f.Sync(); err != nil {
		return fail("fsync", err)
	}
	if err := f.Close(); err != nil {
		return fail("close", err)
	}
	final := filepath.Join(dir, snapshotName(seq))
	if err := os.Rename(tmp, final); err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("rename snapshot into place: %w", err)
	}
	if err := atomicfile.SyncDir(dir); err != nil {
		return "", fmt.Errorf("fsync snapshot folder: %w", err)
	}
	return final, nil
}

// snapshotFile is a snapshot file's name and the seq its name claims.
type snapshotFile struct {
	path string
	seq  uint64
}

// listSnapshots returns the snapshot files of dir, newest (highest seq)
// first. A missing folder is no snapshots.
func listSnapshots(dir string) ([]snapshotFile, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list snapshots: %w", err)
	}
	var out []snapshotFile
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, snapPrefix) || !strings.HasSuffix(name, snapSuffix) {
			continue
		}
		seq, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimPrefix(name, snapPrefix), snapSuffix), 10, 64)
		if err != nil {
			continue
		}
		out = append(out, snapshotFile{path: filepath.Join(dir, name), seq: seq})
	}
	slices.SortFunc(out, func(a, b snapshotFile) int {
		switch {
		case a.seq > b.seq:
			return -1
		case a.seq < b.seq:
			return 1
		}
		return 0
	})
	return out, nil
}

// pruneSnapshots keeps the newest keep snapshot files of dir and removes the
// rest, plus temp files older than staleTempAge. Removal races with other
// processes are harmless: a reader that loses a file skips to the next.
func pruneSnapshots(dir string, keep int, log *slog.Logger) {
	files, err := listSnapshots(dir)
	if err != nil {
		log.Warn("prune snapshots", "err", err)
		return
	}
	for _, f := range files[min(keep, len(files)):] {
		if err := os.Remove(f.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			log.Warn("remove old snapshot", "path", f.path, "err", err)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), tmpSuffix) {
			continue
		}
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > staleTempAge {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// eventAt returns the event with seq from src.
func eventAt(ctx context.Context, src Source, seq uint64) (eventlog.Event, bool, error) {
	var got eventlog.Event
	found := false
	err := src.Read(ctx, seq, func(ev eventlog.Event) error {
		got, found = ev, ev.Seq == seq
		return eventlog.ErrStop
	})
	return got, found, err
}

// loadSnapshot restores projs from the newest snapshot in dir that covers at
// most until, belongs to src's log (the event at its seq has the recorded
// hash) and has a section for every projection. Every unusable file is
// skipped with a log line; a projection half-restored from a bad file is put
// back to its initial state. It returns ErrNoSnapshot when none is usable,
// and a non-nil error otherwise only for a context error.
func loadSnapshot(ctx context.Context, dir string, src Source, projs []Projection, until Until, log *slog.Logger) (Position, error) {
	files, err := listSnapshots(dir)
	if err != nil {
		log.Warn("snapshots unreadable; replaying the log", "err", err)
		return Position{}, ErrNoSnapshot
	}
	if len(files) == 0 {
		return Position{}, ErrNoSnapshot
	}
	head, err := src.Head(ctx)
	if err != nil {
		return Position{}, fmt.Errorf("read log head: %w", err)
	}
	var initial [][]byte
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return Position{}, err
		}
		if f.seq > head.Seq || (until.Seq != 0 && f.seq > until.Seq) {
			continue
		}
		snap, err := readSnapshot(f.path)
		if err == nil && snap.pos.Seq != f.seq {
			err = fmt.Errorf("%w: file name says seq %d, content says %d", ErrBadSnapshot, f.seq, snap.pos.Seq)
		}
		if err == nil && !until.Time.IsZero() && snap.pos.Time.After(until.Time) {
			continue
		}
		if err == nil {
			err = checkSnapshotLog(ctx, src, snap.pos)
		}
		if err == nil {
			if initial == nil {
				if initial, err = marshalAll(projs); err != nil {
					return Position{}, err
				}
			}
			err = restoreAll(projs, snap)
			if err != nil {
				for i, p := range projs {
					if rerr := p.UnmarshalSnapshot(initial[i]); rerr != nil {
						return Position{}, fmt.Errorf("reset projection %s after a bad snapshot: %w", p.Name(), rerr)
					}
				}
			}
		}
		if err != nil {
			if ctx.Err() != nil {
				return Position{}, ctx.Err()
			}
			log.Warn("skipping snapshot", "path", f.path, "err", err)
			continue
		}
		return snap.pos, nil
	}
	return Position{}, ErrNoSnapshot
}

func readSnapshot(path string) (snapshot, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return snapshot{}, fmt.Errorf("read snapshot: %w", err)
	}
	return decodeSnapshot(b)
}

// checkSnapshotLog verifies that the log has the event the snapshot claims to
// end with.
func checkSnapshotLog(ctx context.Context, src Source, pos Position) error {
	if pos.Seq == 0 {
		return nil
	}
	ev, found, err := eventAt(ctx, src, pos.Seq)
	if err != nil {
		return fmt.Errorf("read event %d: %w", pos.Seq, err)
	}
	if !found || ev.Hash != pos.Hash {
		return fmt.Errorf("%w: event %d of this log has hash %q, the snapshot recorded %q", ErrBadSnapshot, pos.Seq, ev.Hash, pos.Hash)
	}
	return nil
}

func marshalAll(projs []Projection) ([][]byte, error) {
	out := make([][]byte, len(projs))
	for i, p := range projs {
		b, err := p.MarshalSnapshot()
		if err != nil {
			return nil, fmt.Errorf("marshal projection %s: %w", p.Name(), err)
		}
		out[i] = b
	}
	return out, nil
}

func restoreAll(projs []Projection, snap snapshot) error {
	for _, p := range projs {
		data, ok := snap.sections[p.Name()]
		if !ok {
			return fmt.Errorf("%w: no section for projection %q", ErrBadSnapshot, p.Name())
		}
		if err := p.UnmarshalSnapshot(data); err != nil {
			return fmt.Errorf("restore projection %s: %w", p.Name(), err)
		}
	}
	return nil
}
