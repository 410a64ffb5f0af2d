package boltlog

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"runtime/debug"

	"github.com/cos-dev/cos/eventlog"
	bolt "go.etcd.io/bbolt"
)

// ErrDamaged is returned, inside an *eventlog.StorageError naming the file
// (the concrete error is a *DamagedError), when the database file is
// truncated — shorter than the pages its meta page says it holds — or when
// bbolt finds a damaged page (it panics, or faults on a page past the end
// of the file, and the panic is turned into this error). Nothing is
// written to such a file.
var ErrDamaged = errors.New("database file truncated or damaged")

// DamagedError is the concrete ErrDamaged: which file and what is wrong
// with it. Its message gives the way back, so that it reads whole at the
// tool surface (it does not unwrap, so it is the root cause).
type DamagedError struct {
	Path   string
	Reason string
}

func (e *DamagedError) Error() string {
	return fmt.Sprintf("the event log %s is truncated or damaged (%s); nothing is written to it. "+
		"Restore a backup with `cos restore BACKUP`, or write every event that can still be read to a new log with "+
		"`cos verify --salvage NEW_FILE`, stop the cos processes of this state folder and put it in place with "+
		"`cos restore NEW_FILE` (the damaged log is kept beside it)", e.Path, e.Reason)
}

// Is reports whether target is ErrDamaged.
func (e *DamagedError) Is(target error) bool { return target == ErrDamaged }

func damaged(op, path, reason string) error {
	return &eventlog.StorageError{Op: op, Path: path, Err: &DamagedError{Path: path, Reason: reason}}
}

// bbolt's meta page (go.etcd.io/bbolt/internal/common): a 16-byte page
// header, then magic, version, page size, flags (4 bytes each), the root
// bucket (16), the freelist page id, the high-water mark (first page id
// past the end), the txid (8 each) and an FNV-64a checksum of the 56 bytes
// before it. Fields are in the machine's byte order.
const (
	boltMagic      = 0xED0CDAED
	boltVersion    = 2
	metaOffset     = 16
	metaSummed     = 56
	metaPgidOffset = metaOffset + 40
	metaTxidOffset = metaOffset + 48
	metaSumOffset  = metaOffset + 56
	metaPageBytes  = metaSumOffset + 8
)

type boltMeta struct {
	pageSize uint32
	pgid     uint64
	txid     uint64
}

// readMeta decodes the meta page at off; ok is false when it does not
// validate (as bbolt's Meta.Validate).
func readMeta(f io.ReaderAt, off int64) (m boltMeta, ok bool) {
	var b [metaPageBytes]byte
	if _, err := f.ReadAt(b[:], off); err != nil {
		return m, false
	}
	ne := binary.NativeEndian
	if ne.Uint32(b[metaOffset:]) != boltMagic || ne.Uint32(b[metaOffset+4:]) != boltVersion {
		return m, false
	}
	h := fnv.New64a()
	h.Write(b[metaOffset : metaOffset+metaSummed])
	if h.Sum64() != ne.Uint64(b[metaSumOffset:]) {
		return m, false
	}
	m = boltMeta{pageSize: ne.Uint32(b[metaOffset+8:]), pgid: ne.Uint64(b[metaPgidOffset:]), txid: ne.Uint64(b[metaTxidOffset:])}
	return m, m.pageSize >= 512 && m.pageSize <= 1<<24
}

// highWater returns the size in bytes the meta page bbolt will use says
// the file holds (page size × high-water mark), read with pread so that
// nothing is mapped yet. An empty file is 0 (bbolt initialises it). It
// fails when neither meta page validates.
func highWater(f *os.File) (size, need int64, err error) {
	info, err := f.Stat()
	if err != nil {
		return 0, 0, err
	}
	size = info.Size()
	if size == 0 {
		return 0, 0, nil
	}
	m0, ok0 := readMeta(f, 0)
	var m1 boltMeta
	ok1 := false
	if ok0 {
		m1, ok1 = readMeta(f, int64(m0.pageSize))
	} else {
		// bbolt looks for the second meta page at every page size.
		for ps := int64(1024); ps <= 1<<24 && ps < size; ps <<= 1 {
			if m1, ok1 = readMeta(f, ps); ok1 && int64(m1.pageSize) == ps {
				break
			}
			ok1 = false
		}
	}
	// bbolt uses the valid meta page with the higher txid.
	var m boltMeta
	switch {
	case ok0 && ok1 && m1.txid > m0.txid, !ok0 && ok1:
		m = m1
	case ok0:
		m = m0
	default:
		return size, 0, errors.New("neither meta page is valid")
	}
	need = int64(m.pgid) * int64(m.pageSize)
	if min := 2 * int64(m.pageSize); need < min {
		need = min
	}
	return size, need, nil
}

// fileHighWater is highWater of the file at path.
func fileHighWater(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	_, need, err := highWater(f)
	return need, err
}

// checkSize fails with a *DamagedError when f is shorter than its meta
// page says.
func checkSize(f *os.File) error {
	size, need, err := highWater(f)
	switch {
	case err != nil:
		return &DamagedError{Path: f.Name(), Reason: err.Error()}
	case size < need:
		return &DamagedError{Path: f.Name(), Reason: fmt.Sprintf("truncated: the file is %d bytes, its meta page says it holds %d", size, need)}
	}
	return nil
}

// withDB opens the database at path with o, runs fn on it and closes it,
// so that a damaged file is an error, never a crash:
//
//   - before bbolt maps anything, the file's size is checked against its
//     meta page (checkSize, unless lenient), so no page past the end of the
//     file is ever read;
//   - the calling goroutine panics on a memory fault instead of crashing
//     (debug.SetPanicOnFault), since a page past the end of a mapping is
//     SIGBUS;
//   - a panic of bbolt (its assertions on damaged pages) or such a fault is
//     recovered into damaged(op, path, …).
//
// After a recovered panic the database is not closed (bbolt may hold its
// locks in an inconsistent state): the file is closed, which releases
// bbolt's flock, and its mapping is left to the process. lenient skips the
// size check, for Salvage, which reads what it still can of a truncated
// file.
func withDB(op, path string, o bolt.Options, lenient bool, fn func(db *bolt.DB) error) (err error) {
	var (
		file   *os.File
		sizeOK error
	)
	o.OpenFile = func(name string, flag int, perm os.FileMode) (*os.File, error) {
		f, err := os.OpenFile(name, flag, perm)
		if err != nil {
			return nil, err
		}
		if sizeOK = checkSize(f); sizeOK != nil && !lenient {
			_ = f.Close()
			return nil, sizeOK
		}
		file = f
		return f, nil
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if file != nil {
				_ = file.Close()
			}
			err = damaged(op, path, fmt.Sprintf("reading it failed: %v", r))
		}
	}()
	db, err := bolt.Open(path, 0o644, &o)
	var de *DamagedError
	switch {
	case errors.As(err, &de):
		return &eventlog.StorageError{Op: op, Path: path, Err: de}
	case err != nil && errors.As(sizeOK, &de):
		// lenient, and bbolt could not open what is left.
		de.Reason += fmt.Sprintf(", and bbolt cannot open it: %v", err)
		return &eventlog.StorageError{Op: op, Path: path, Err: de}
	case err != nil:
		return &eventlog.StorageError{Op: op, Path: path, Err: err}
	}
	err = fn(db)
	if cerr := db.Close(); err == nil && cerr != nil {
		err = &eventlog.StorageError{Op: "close", Path: path, Err: cerr}
	}
	return err
}

// guarded runs fn and returns what it panicked with (nil when it did
// not): Salvage reads past a damaged page this way. The caller runs under
// withDB, so a fault is a panic too.
func guarded(fn func()) (panicked any) {
	defer func() { panicked = recover() }()
	fn()
	return nil
}
