package state

import (
	"path/filepath"

	"github.com/cos-dev/cos/eventlog/store"
)

// ErrStore is returned (wrapped) by ParseStore for an address that is none
// of the accepted forms (store.Forms).
var ErrStore = store.ErrStore

// Store is where the event log lives, parsed from a store address
// (LogOptions.Store, Options.Store, `--store`, COS_STORE): a bbolt file
// (Path) or a NATS JetStream stream (URLs, Stream).
type Store = store.Address

// ParseStore parses a store address for the state folder dir: "" is the
// bbolt file LogFile in dir; an address with a scheme must be nats:// or
// tls://; anything else is the path of a bbolt file, relative to the
// working directory, which must not be an existing folder and whose folder
// must exist (store.Parse). Errors wrap ErrStore and name the accepted
// forms.
func ParseStore(dir, addr string) (Store, error) {
	return store.Parse(filepath.Join(dir, LogFile), addr)
}
