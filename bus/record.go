package bus

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// File names inside the state folder: RecordFile names the embedded server
// that runs (its URL, host pid and start), LockFile is the host election's
// lock.
const (
	RecordFile = "nats.json"
	LockFile   = "nats.lock"
)

// Record is the content of <state>/nats.json: the embedded server that the
// current (or last) host started.
type Record struct {
	// URL is the client URL, "nats://127.0.0.1:<port>".
	URL string `json:"url"`
	// PID and Host identify the hosting process.
	PID  int    `json:"pid"`
	Host string `json:"host"`
	// Started is when the server started listening, UTC.
	Started time.Time `json:"started"`
}

// port returns the TCP port of r.URL, or 0 when it has none.
func (r Record) port() int {
	u, err := url.Parse(r.URL)
	if err != nil {
		return 0
	}
	p, err := strconv.Atoi(u.Port())
	if err != nil {
		return 0
	}
	return p
}

// readRecord reads <dir>/nats.json. A missing file is (Record{}, false, nil);
// a file that does not parse is reported as missing too, since the next host
// rewrites it.
func readRecord(dir string) (Record, bool, error) {
	b, err := os.ReadFile(filepath.Join(dir, RecordFile))
	if errors.Is(err, fs.ErrNotExist) {
		return Record{}, false, nil
	}
	if err != nil {
		return Record{}, false, fmt.Errorf("read %s: %w", RecordFile, err)
	}
	var r Record
	if err := json.Unmarshal(b, &r); err != nil || r.URL == "" {
		return Record{}, false, nil
	}
	return r, true, nil
}

// writeRecord replaces <dir>/nats.json atomically (writeFileAtomic).
func writeRecord(dir string, r Record) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", RecordFile, err)
	}
	return writeFileAtomic(dir, RecordFile, append(b, '\n'), 0o600)
}

// writeFileAtomic replaces <dir>/<name> with data and mode: a temporary
// file in the same folder (created with mode 0600, so a secret is never
// readable by others, then set to mode) is written and fsynced, renamed
// over the file, and the folder is fsynced so the rename survives a crash.
func writeFileAtomic(dir, name string, data []byte, mode os.FileMode) error {
	tmp, err := os.CreateTemp(dir, name+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	tmpName := tmp.Name()
	defer func() { _ = os.Remove(tmpName) }() // a no-op once renamed
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("sync %s: %w", name, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("close %s: %w", name, err)
	}
	if err := os.Rename(tmpName, filepath.Join(dir, name)); err != nil {
		return fmt.Errorf("rename %s: %w", name, err)
	}
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync state dir: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync state dir: %w", err)
	}
	return nil
}
