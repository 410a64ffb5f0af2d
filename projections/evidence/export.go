package evidence

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"
)

// AgentDirEnv names the environment variable that overrides the export
// folder: the export is then $COS_AGENT_DIR/evidence_bundle_<session>.json
// (docs/storage.md).
const AgentDirEnv = "COS_AGENT_DIR"

// DefaultAgentSubdir is the export folder under the state folder when
// $COS_AGENT_DIR is unset.
const DefaultAgentSubdir = "agent"

// lockRetryDelay is how often Export retries the per-session lock file.
const lockRetryDelay = 5 * time.Millisecond

// ExportDir returns where bundles are exported: getenv(AgentDirEnv) when
// set, else <stateDir>/agent. Pass os.Getenv.
func ExportDir(stateDir string, getenv func(string) string) string {
	if d := getenv(AgentDirEnv); d != "" {
		return d
	}
	return filepath.Join(stateDir, DefaultAgentSubdir)
}

// ExportPath returns <dir>/evidence_bundle_<session>.json.
func ExportPath(dir, session string) string {
	return filepath.Join(dir, "evidence_bundle_"+session+".json")
}

// Export writes the bundle as indented JSON to ExportPath(dir, session)
// atomically: a temp file in dir, fsync, rename over the target, fsync of
// dir — a reader sees the old file or the new one, never a partial one.
// dir is created (0o755) when missing. Exports of one session are
// serialised across processes by a lock file (.evidence_bundle_<session>.lock)
// and never go backwards: when the file on disk already holds a later
// revision, Export leaves it and returns its path. ctx bounds the wait for
// the lock.
func Export(ctx context.Context, dir string, b Bundle) (string, error) {
	if err := ValidateSession(b.SessionID); err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("export bundle: %w", err)
	}
	target := ExportPath(dir, b.SessionID)
	lock := flock.New(filepath.Join(dir, ".evidence_bundle_"+b.SessionID+".lock"))
	locked, err := lock.TryLockContext(ctx, lockRetryDelay)
	if err != nil || !locked {
		return "", fmt.Errorf("export bundle: lock: %w", errors.Join(err, ctx.Err()))
	}
	defer func() { _ = lock.Unlock() }()

	if on, err := revisionOnDisk(target); err == nil && on > b.Revision {
		return target, nil
	}
	data, err := json.MarshalIndent(b, "", "  ")
	if err != nil {
		return "", fmt.Errorf("export bundle: encode: %w", err)
	}
	if err := writeFileAtomic(dir, target, append(data, '\n')); err != nil {
		return "", fmt.Errorf("export bundle: %w", err)
	}
	return target, nil
}

// revisionOnDisk reads the revision of an exported bundle; a missing or
// unreadable file counts as revision 0.
func revisionOnDisk(path string) (uint64, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	var head struct {
		Revision uint64 `json:"revision"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return 0, nil
	}
	return head.Revision, nil
}

// writeFileAtomic is temp → fsync → rename → fsync dir.
func writeFileAtomic(dir, target string, data []byte) (err error) {
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(target)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		_ = tmp.Close()
		return err
	}
	if err = tmp.Sync(); err != nil {
		_ = tmp.Close()
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	if err = os.Rename(tmp.Name(), target); err != nil {
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer func() { _ = d.Close() }()
	return d.Sync()
}
