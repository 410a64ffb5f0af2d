package state

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/eventlog/boltlog"
	"github.com/cos-dev/cos/eventlog/natslog"
)

// StoreForms names the accepted forms of a store address, for messages.
const StoreForms = `"" (the file events.db in the state folder), a bbolt file path, or nats://HOST:PORT[,nats://HOST:PORT…][/STREAM]`

// ErrStore is returned (wrapped) by ParseStore for an address that is none
// of StoreForms.
var ErrStore = errors.New("invalid store")

// Store is where the event log lives, parsed from a store address
// (LogOptions.Store, Options.Store, `--store`, COS_STORE).
type Store struct {
	// Path is the bbolt file of a file store; empty for a NATS store.
	Path string
	// URLs (comma-separated servers) and Stream (empty: natslog's default)
	// name a NATS store.
	URLs, Stream string
}

// IsNATS reports whether the log is a JetStream stream rather than a file.
func (s Store) IsNATS() bool { return s.URLs != "" }

// Replicas is the replica count of a stream cos creates in a NATS store:
// 3 when the address lists three servers or more (a cluster: every event
// on three nodes), 1 otherwise. An existing stream keeps its own.
func (s Store) Replicas() int {
	if strings.Count(s.URLs, ",") >= 2 {
		return 3
	}
	return 1
}

// String is the store's address: the file path, or the NATS servers and
// stream.
func (s Store) String() string {
	if !s.IsNATS() {
		return s.Path
	}
	stream := s.Stream
	if stream == "" {
		stream = natslog.DefaultStream
	}
	return s.URLs + "/" + stream
}

// ParseStore parses a store address for the state folder dir: "" is the
// bbolt file LogFile in dir; an address with a scheme must be nats:// or
// tls:// (natslog.ParseStore); anything else is the path of a bbolt file,
// relative to the working directory, which must not be an existing folder
// and whose folder must exist.
// Errors wrap ErrStore and name the accepted forms.
func ParseStore(dir, addr string) (Store, error) {
	addr = strings.TrimSpace(addr)
	switch {
	case addr == "":
		return Store{Path: filepath.Join(dir, LogFile)}, nil
	case strings.Contains(addr, "://"):
		urls, stream, err := natslog.ParseStore(addr)
		if err != nil {
			return Store{}, fmt.Errorf("%w: %v; accepted: %s", ErrStore, err, StoreForms)
		}
		return Store{URLs: urls, Stream: stream}, nil
	case strings.HasSuffix(addr, "/") || strings.HasSuffix(addr, string(filepath.Separator)):
		return Store{}, fmt.Errorf("%w: %q names a folder, want a file; accepted: %s", ErrStore, addr, StoreForms)
	}
	abs, err := filepath.Abs(addr)
	if err != nil {
		return Store{}, fmt.Errorf("%w: %q: %v; accepted: %s", ErrStore, addr, err, StoreForms)
	}
	if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
		return Store{}, fmt.Errorf("%w: %q names a folder, want a file; accepted: %s", ErrStore, addr, StoreForms)
	}
	// A mistyped path must not become a new, empty log in new folders.
	if fi, err := os.Stat(filepath.Dir(abs)); err != nil || !fi.IsDir() {
		return Store{}, fmt.Errorf("%w: %q: the folder %s does not exist; create it first, or check the path", ErrStore, addr, filepath.Dir(abs))
	}
	return Store{Path: abs}, nil
}

// BackupLogFile is BackupLog for the log file at path (a file store, Store.Path).
func BackupLogFile(ctx context.Context, path, dest string) (string, eventlog.Head, error) {
	if fi, err := os.Stat(dest); err == nil && fi.IsDir() {
		dest = filepath.Join(dest, "events-"+time.Now().UTC().Format("20060102T150405.000Z")+".db")
	}
	l, err := openBoltReadOnly(ctx, path)
	if err != nil {
		return dest, eventlog.Head{}, err
	}
	defer func() { _ = l.Close(context.Background()) }()
	h, err := l.Backup(ctx, dest)
	return dest, h, err
}

// SalvageLogFile is SalvageLog for the log file at path (a file store,
// Store.Path).
func SalvageLogFile(ctx context.Context, path, dest string) (SalvageReport, error) {
	l, err := openBoltReadOnly(ctx, path)
	if err != nil {
		return SalvageReport{}, err
	}
	defer func() { _ = l.Close(context.Background()) }()
	return l.Salvage(ctx, dest)
}

// ErrNotEmpty is returned by ImportLog when the target stream already
// holds events.
var ErrNotEmpty = natslog.ErrNotEmpty

// ImportSource is what ImportLog copies: every Log is one.
type ImportSource = boltlog.ImportSource

// ImportLog copies every event src reads, verbatim (the same seqs, ids,
// times, actors, request ids and hashes), into target: an empty JetStream
// stream (natslog.Import; ErrNotEmpty otherwise) or a new bbolt file
// (boltlog.Import; ErrDestExists when it exists). Each event is checked
// against its predecessor on the way. It returns the target's head after
// the copy — on an error, what was copied so far. progress, when non-nil,
// is called with the number of events copied now and then. Receipts of
// request ids are not copied.
func ImportLog(ctx context.Context, target Store, src ImportSource, progress func(copied uint64)) (eventlog.Head, error) {
	if target.IsNATS() {
		return natslog.Import(ctx, target.URLs, natslog.Options{Stream: target.Stream, Replicas: target.Replicas()}, src, progress)
	}
	if err := os.MkdirAll(filepath.Dir(target.Path), 0o755); err != nil {
		return eventlog.Head{Hash: eventlog.ZeroHash}, &eventlog.StorageError{Op: "create folder", Path: filepath.Dir(target.Path), Err: err}
	}
	return boltlog.Import(ctx, target.Path, src, progress)
}
