package state

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/eventlog/store"
	"github.com/cos-dev/cos/internal/atomicfile"
	"golang.org/x/sys/unix"
)

// RestoreReport is what RestoreLog did.
type RestoreReport struct {
	// Events is the number of events in the restored log, Head its head.
	Events uint64        `json:"events"`
	Head   eventlog.Head `json:"head"`
	// Replaced is where the log that was in place was moved ("" when the
	// folder had none). It is kept, never deleted.
	Replaced string `json:"replaced,omitempty"`
	// SeenSeq is the newest seq the state folder had seen of its log
	// before the restore (LogSeenFile, which the restore clears; 0 when it
	// had none). Above Head.Seq, the events after the restored head are
	// not in the restored log.
	SeenSeq uint64 `json:"seen_seq,omitempty"`
}

// Holder is a process that holds a lock in the state folder.
type Holder struct {
	// Lock is the lock file, relative to the state folder.
	Lock string `json:"lock"`
	// PID and Command name the holder when the system says (Linux
	// /proc/locks); 0 and "" otherwise.
	PID     int    `json:"pid,omitempty"`
	Command string `json:"command,omitempty"`
}

// BusyError is returned by RestoreLog while cos processes use the state
// folder; it names each lock held and, where known, the process.
type BusyError struct {
	Dir     string
	Holders []Holder
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("the state folder %s is in use: %s; stop those cos processes (cos serve, cos call, cos index, cos watch) and run the restore again",
		e.Dir, e.HoldersText())
}

// HoldersText names the holders: "process 12 (cos) holds nats.lock; …".
func (e *BusyError) HoldersText() string {
	var parts []string
	for _, h := range e.Holders {
		switch {
		case h.PID != 0 && h.Command != "":
			parts = append(parts, fmt.Sprintf("process %d (%s) holds %s", h.PID, h.Command, h.Lock))
		case h.PID != 0:
			parts = append(parts, fmt.Sprintf("process %d holds %s", h.PID, h.Lock))
		default:
			parts = append(parts, "a process holds "+h.Lock)
		}
	}
	return strings.Join(parts, "; ")
}

// ErrRestoreSource is returned (wrapped) by RestoreLog when the file to
// restore is missing, not a cos log, or does not verify.
var ErrRestoreSource = errors.New("cannot restore from this file")

// RestoreLog puts the log file src (a backup, or a salvaged log) in place
// as the state folder's log. It refuses — changing nothing — when src does
// not verify or holds no events (ErrRestoreSource) or while any cos process holds a lock in
// the folder (a search slot, the bus election, an index run: *BusyError
// naming each). Otherwise, holding the log's exclusive lock, it copies src
// beside the log (fsynced), moves the current log to
// events.db.replaced-<UTC time> (kept, never deleted), renames the copy
// into place, fsyncs the folder, and deletes what derives from the old log:
// the head hint, the snapshots, the search slots and LogSeenFile. src is not modified.
func RestoreLog(ctx context.Context, dir, src string) (RestoreReport, error) {
	var rep RestoreReport
	n, err := store.VerifyFile(ctx, src)
	if err != nil {
		return rep, fmt.Errorf("%w %s: %w", ErrRestoreSource, src, err)
	}
	if n == 0 {
		// An empty log would silently empty the graph, the board and the
		// bundles; nobody backs one up on purpose.
		return rep, fmt.Errorf("%w %s: it holds no events, so restoring it would empty every projection", ErrRestoreSource, src)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		if err := EnsureDir(dir); err != nil {
			return rep, err
		}
	}
	held, unlock, err := lockFolder(dir)
	if err != nil {
		return rep, err
	}
	defer unlock()
	if len(held) > 0 {
		return rep, &BusyError{Dir: dir, Holders: held}
	}
	logPath := filepath.Join(dir, LogFile)
	tmp := logPath + ".restore-tmp"
	if err := copyFileSynced(src, tmp); err != nil {
		_ = os.Remove(tmp)
		return rep, fmt.Errorf("copy %s into the state folder: %w", src, err)
	}
	if _, err := os.Stat(logPath); err == nil {
		rep.Replaced = logPath + ".replaced-" + time.Now().UTC().Format("20060102T150405.000000000Z")
		if err := os.Rename(logPath, rep.Replaced); err != nil {
			_ = os.Remove(tmp)
			return rep, fmt.Errorf("move the current log aside: %w", err)
		}
	}
	if err := os.Rename(tmp, logPath); err != nil {
		return rep, fmt.Errorf("put the restored log in place (the previous one is %s): %w", rep.Replaced, err)
	}
	if err := atomicfile.SyncDir(dir); err != nil {
		return rep, err
	}
	rep.SeenSeq = readSeen(seenFile(dir), slog.New(slog.DiscardHandler)).Seq
	for _, p := range []string{logPath + ".head", filepath.Join(dir, SnapshotDir), filepath.Join(dir, SearchDir), filepath.Join(dir, LogSeenFile)} {
		if err := os.RemoveAll(p); err != nil {
			return rep, fmt.Errorf("remove %s, derived from the replaced log: %w", p, err)
		}
	}
	unlock()
	// A read-write open rewrites the head hint from the restored log.
	l, err := OpenLog(ctx, dir, LogOptions{})
	if err != nil {
		return rep, err
	}
	rep.Head, err = l.Head(ctx)
	_ = l.Close(ctx)
	rep.Events = n
	return rep, err
}

// FolderInUse returns the locks other processes hold in the state folder
// dir (as RestoreLog checks them: the log's lock file, the search slots,
// the bus election, the index lock), taking and releasing at once those
// nobody holds. None when dir does not exist.
func FolderInUse(dir string) ([]Holder, error) {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, nil
	}
	held, release, err := lockFolder(dir)
	release()
	return held, err
}

// lockFolder takes, without waiting, every lock a cos process holds in the
// state folder for its life or its run: the log's lock file, the search
// slots, the bus election and the index lock. It returns the ones held by
// someone else, and a release for those it took (idempotent).
func lockFolder(dir string) ([]Holder, func(), error) {
	names := []string{LogFile + ".lock", IndexLockFile, NATSLockFile}
	slots, _ := filepath.Glob(filepath.Join(dir, SearchDir, "slot-*.lock"))
	for _, s := range slots {
		rel, _ := filepath.Rel(dir, s)
		names = append(names, rel)
	}
	var (
		files []*os.File
		held  []Holder
	)
	release := func() {
		for _, f := range files {
			_ = unix.Flock(int(f.Fd()), unix.LOCK_UN)
			_ = f.Close()
		}
		files = nil
	}
	for _, name := range names {
		path := filepath.Join(dir, name)
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			release()
			return nil, func() {}, fmt.Errorf("open lock %s: %w", path, err)
		}
		if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
			_ = f.Close()
			if !errors.Is(err, unix.EWOULDBLOCK) {
				release()
				return nil, func() {}, fmt.Errorf("lock %s: %w", path, err)
			}
			h := Holder{Lock: name}
			h.PID, h.Command = lockHolder(path)
			held = append(held, h)
			continue
		}
		files = append(files, f)
	}
	return held, release, nil
}

// lockHolder finds the process holding an flock on path in /proc/locks
// (Linux); 0, "" when it cannot tell.
func lockHolder(path string) (int, string) {
	fi, err := os.Stat(path)
	if err != nil {
		return 0, ""
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, ""
	}
	f, err := os.Open("/proc/locks")
	if err != nil {
		return 0, ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// 1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || fields[1] != "FLOCK" {
			continue
		}
		dev := strings.Split(fields[5], ":")
		if len(dev) != 3 || dev[2] != strconv.FormatUint(st.Ino, 10) {
			continue
		}
		pid, err := strconv.Atoi(fields[4])
		if err != nil || pid <= 0 {
			continue
		}
		cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		return pid, strings.TrimSpace(strings.ReplaceAll(string(cmd), "\x00", " "))
	}
	return 0, ""
}

// copyFileSynced copies src to a new file dst and fsyncs it.
func copyFileSynced(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		_ = out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		_ = out.Close()
		return err
	}
	return out.Close()
}
