package store

import (
	"errors"

	"github.com/cos-dev/cos/eventlog/boltlog"
	"github.com/cos-dev/cos/eventlog/natslog"
)

// ErrStore is returned (wrapped) by Parse for an address that is none of
// Forms.
var ErrStore = errors.New("invalid store")

// ErrDestExists is returned by Backup, Salvage and Import (into a file)
// when the file to write already exists: none ever overwrites a file.
var ErrDestExists = boltlog.ErrDestExists

// ErrNotEmpty is returned by Import when the target stream already holds
// events.
var ErrNotEmpty = natslog.ErrNotEmpty

// ErrUnavailable is wrapped by the errors of a NATS store whose servers did
// not answer (none reachable, the connection down, no stream leader in
// time): nothing was written, and the same call may succeed later.
var ErrUnavailable = natslog.ErrUnavailable

// ErrNoStream is returned by Open for a NATS store whose stream does not
// exist, unless Options.CreateStream (natslog.ErrNoStream).
var ErrNoStream = natslog.ErrNoStream
