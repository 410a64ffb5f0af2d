package store

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cos-dev/cos/eventlog/natslog"
)

// Forms names the accepted forms of a store address, for messages.
const Forms = `"" (the file events.db in the state folder), a bbolt file path, or nats://HOST:PORT[,nats://HOST:PORT…][/STREAM]`

// Address is where an event log lives, parsed from a store address
// (`--store`, COS_STORE).
type Address struct {
	// Path is the bbolt file of a file store; empty for a NATS store.
	Path string
	// URLs (comma-separated servers) and Stream (empty: natslog's default)
	// name a NATS store.
	URLs, Stream string
}

// IsNATS reports whether the log is a JetStream stream rather than a file.
func (a Address) IsNATS() bool { return a.URLs != "" }

// Replicas is the replica count of a stream cos creates in a NATS store:
// 3 when the address lists three servers or more (a cluster: every event
// on three nodes), 1 otherwise. An existing stream keeps its own.
func (a Address) Replicas() int {
	if strings.Count(a.URLs, ",") >= 2 {
		return 3
	}
	return 1
}

// String is the store's address: the file path, or the NATS servers and
// stream.
func (a Address) String() string {
	if !a.IsNATS() {
		return a.Path
	}
	stream := a.Stream
	if stream == "" {
		stream = natslog.DefaultStream
	}
	return a.URLs + "/" + stream
}

// Parse parses a store address: "" is the bbolt file defaultPath (a state
// folder's events.db); an address with a scheme must be nats:// or tls://
// (natslog.ParseStore); anything else is the path of a bbolt file,
// relative to the working directory, which must not be an existing folder
// and whose folder must exist. Errors wrap ErrStore and name the accepted
// forms.
func Parse(defaultPath, addr string) (Address, error) {
	addr = strings.TrimSpace(addr)
	switch {
	case addr == "":
		return Address{Path: defaultPath}, nil
	case strings.Contains(addr, "://"):
		urls, stream, err := natslog.ParseStore(addr)
		if err != nil {
			return Address{}, fmt.Errorf("%w: %v; accepted: %s", ErrStore, err, Forms)
		}
		return Address{URLs: urls, Stream: stream}, nil
	case strings.HasSuffix(addr, "/") || strings.HasSuffix(addr, string(filepath.Separator)):
		return Address{}, fmt.Errorf("%w: %q names a folder, want a file; accepted: %s", ErrStore, addr, Forms)
	}
	abs, err := filepath.Abs(addr)
	if err != nil {
		return Address{}, fmt.Errorf("%w: %q: %v; accepted: %s", ErrStore, addr, err, Forms)
	}
	if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
		return Address{}, fmt.Errorf("%w: %q names a folder, want a file; accepted: %s", ErrStore, addr, Forms)
	}
	// A mistyped path must not become a new, empty log in new folders.
	if fi, err := os.Stat(filepath.Dir(abs)); err != nil || !fi.IsDir() {
		return Address{}, fmt.Errorf("%w: %q: the folder %s does not exist; create it first, or check the path", ErrStore, addr, filepath.Dir(abs))
	}
	return Address{Path: abs}, nil
}
