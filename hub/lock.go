package hub

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"

	"github.com/cos-dev/cos/internal/atomicfile"
)

// Files of the state folder the Hub's lock uses.
const (
	// LockFile is held (flock, exclusive) by the one process whose Hub
	// the state folder names: `cos hub`, or a `cos serve --http` that got
	// it first.
	LockFile = "hub.lock"
	// InfoFile records where that Hub is: JSON Info. It is written once
	// the Hub listens and removed when it stops.
	InfoFile = "hub.json"
)

// infoWait is how long TakeLock waits for the holder's InfoFile to name
// its address (the holder writes it just after taking the lock).
const infoWait = 2 * time.Second

// Info is the content of InfoFile.
type Info struct {
	// Addr is the address the Hub listens on, HOST:PORT.
	Addr string `json:"addr"`
	// PID is the process serving it.
	PID int `json:"pid"`
	// Started is when it began to serve, UTC.
	Started time.Time `json:"started"`
}

// URL is the address of the Hub's page: PageURL(Addr).
func (i Info) URL() string { return PageURL(i.Addr) }

// PageURL is the address of the page of a Hub listening on addr
// (HOST:PORT): http://ADDR/, with a wildcard host (0.0.0.0, [::], none)
// given as 127.0.0.1, which a browser on the same machine opens; from
// another machine the page is at this machine's name and the same port.
func PageURL(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "http://" + addr + "/"
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port) + "/"
}

// RunningError is returned by TakeLock when another process holds the
// state folder's Hub lock. Info is what that process recorded (zero when
// it has recorded nothing yet).
type RunningError struct {
	Info Info
}

func (e *RunningError) Error() string {
	if e.Info.Addr == "" {
		return "a Hub already serves this state folder (its address is not recorded yet; see " + InfoFile + " in the state folder)"
	}
	return fmt.Sprintf("a Hub already serves this state folder at %s (pid %d)", e.Info.URL(), e.Info.PID)
}

// ErrRunning is what a *RunningError matches with errors.Is.
var ErrRunning = errors.New("a Hub already serves this state folder")

// Is makes errors.Is(err, ErrRunning) true.
func (e *RunningError) Is(target error) bool { return target == ErrRunning }

// Lock is the state folder's Hub lock, held until Release.
type Lock struct {
	f   *os.File
	dir string
}

// TakeLock takes the Hub lock of the state folder dir without waiting. It
// returns a *RunningError naming the holder's address and pid when another
// process holds it, or the error of opening the lock file.
func TakeLock(dir string) (*Lock, error) {
	f, err := os.OpenFile(filepath.Join(dir, LockFile), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("hub lock: %w", err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		_ = f.Close()
		if !errors.Is(err, unix.EWOULDBLOCK) {
			return nil, fmt.Errorf("hub lock %s: %w", filepath.Join(dir, LockFile), err)
		}
		return nil, &RunningError{Info: waitInfo(dir)}
	}
	return &Lock{f: f, dir: dir}, nil
}

// waitInfo reads InfoFile, waiting up to infoWait for a holder that has
// just taken the lock to write it.
func waitInfo(dir string) Info {
	deadline := time.Now().Add(infoWait)
	for {
		info, err := ReadInfo(dir)
		if err == nil || time.Now().After(deadline) {
			return info
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// ReadInfo reads the state folder's InfoFile: where its Hub is, if one
// runs. A missing or damaged file is an error.
func ReadInfo(dir string) (Info, error) {
	b, err := os.ReadFile(filepath.Join(dir, InfoFile))
	if err != nil {
		return Info{}, err
	}
	var info Info
	if err := json.Unmarshal(b, &info); err != nil || info.Addr == "" {
		return Info{}, fmt.Errorf("%s: not a Hub record", InfoFile)
	}
	return info, nil
}

// Record writes InfoFile: the Hub of this lock listens on addr.
func (l *Lock) Record(addr string) error {
	b, err := json.Marshal(Info{Addr: addr, PID: os.Getpid(), Started: time.Now().UTC().Truncate(time.Second)})
	if err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(l.dir, InfoFile), append(b, '\n')); err != nil {
		return fmt.Errorf("hub record: %w", err)
	}
	return nil
}

// Release removes InfoFile and releases the lock. It is idempotent.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := os.Remove(filepath.Join(l.dir, InfoFile))
	if errors.Is(err, os.ErrNotExist) {
		err = nil
	}
	if cerr := l.f.Close(); err == nil { // closing releases the flock
		err = cerr
	}
	l.f = nil
	return err
}
