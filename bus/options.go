package bus

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/url"
	"path/filepath"
	"regexp"
	"time"
)

// Modes of Options.Mode other than a URL.
const (
	ModeAuto = "auto"
	ModeOff  = "off"
)

// Defaults applied by Open to zero-valued Options fields.
const (
	// DefaultHeartbeatInterval is how often each process announces itself
	// on the presence subject.
	DefaultHeartbeatInterval = 2 * time.Second

	// DefaultConnectTimeout bounds how long Open waits for a first
	// connection (including an election and a server start in auto mode).
	DefaultConnectTimeout = 10 * time.Second

	// DefaultReconnectWait is the pause between two reconnect attempts to
	// the same URL. With a takeover on the same port, clients are back
	// within about this long after the new host listens.
	DefaultReconnectWait = 250 * time.Millisecond

	// DefaultMaxPayload is the largest message, in bytes, the embedded server
	// accepts. An event larger than the server's limit is not published
	// (Publish returns an error); subscribers see a gap and read the log.
	DefaultMaxPayload = 8 << 20

	// peerTTLIntervals is how many heartbeat intervals a peer stays listed
	// after it was last heard from.
	peerTTLIntervals = 3

	// namespaceHashLen is the number of hex digits of a derived namespace.
	namespaceHashLen = 12

	// maxNamespaceLen bounds an explicit namespace.
	maxNamespaceLen = 64
)

// Options configures Open. The zero value of every field but StateDir is
// usable.
type Options struct {
	// Mode is "auto" (also the meaning of ""), "off", or a nats:// URL of an
	// external server, used as given: it may carry its own credentials
	// (nats://user:password@host:port or nats://token@host:port), which
	// State, logs and errors show as "xxxxx". In auto mode the embedded
	// server requires the credentials of <StateDir>/nats-auth.json.
	Mode string

	// StateDir is the state folder. It holds nats.json and nats.lock in auto
	// mode and is the source of the derived namespace. Required unless Mode
	// is "off" and Namespace is set.
	StateDir string

	// Namespace is the second subject token, cos.<Namespace>.…; letters,
	// digits, '-' and '_', at most 64 characters. Empty means a 12-hex-digit
	// SHA-256 prefix of StateDir's absolute, symlink-resolved path.
	Namespace string

	// Logger receives the bus's and the embedded server's log lines. Nil
	// means slog.Default().
	Logger *slog.Logger

	// HeartbeatInterval is the presence period. Zero means
	// DefaultHeartbeatInterval; negative is invalid. A peer is listed by
	// Peers until 3 intervals after its last heartbeat.
	HeartbeatInterval time.Duration

	// Position reports this process's log position (the last applied seq)
	// for its heartbeats and for Peers. It is called from the heartbeat
	// goroutine and from Peers, so it must be safe for concurrent use and
	// fast (an atomic load). Nil reports 0.
	Position func() uint64

	// ConnectTimeout bounds Open when ctx has no earlier deadline. Zero means
	// DefaultConnectTimeout; negative is invalid.
	ConnectTimeout time.Duration

	// ReconnectWait is the pause between reconnect attempts. Zero means
	// DefaultReconnectWait; negative is invalid.
	ReconnectWait time.Duration

	// NoEcho keeps the messages this Bus publishes from reaching its own
	// subscriptions (the server does not send them back). A process that
	// applies its own commits itself sets it, so that its own doorbells do
	// not make it read the log again.
	NoEcho bool
}

var namespaceRE = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// Validate reports whether o can be opened. Errors wrap ErrInvalidOptions.
func (o Options) Validate() error {
	switch o.Mode {
	case "", ModeAuto, ModeOff:
	default:
		u, err := url.Parse(o.Mode)
		if err != nil || u.Host == "" || (u.Scheme != "nats" && u.Scheme != "tls") {
			return fmt.Errorf("%w: mode %q: want %q, %q or a nats:// URL", ErrInvalidOptions, redactURL(o.Mode), ModeAuto, ModeOff)
		}
	}
	if o.StateDir == "" && !(o.Mode == ModeOff && o.Namespace != "") && !(o.isURL() && o.Namespace != "") {
		return fmt.Errorf("%w: state dir is required", ErrInvalidOptions)
	}
	if o.Namespace != "" && (len(o.Namespace) > maxNamespaceLen || !namespaceRE.MatchString(o.Namespace)) {
		return fmt.Errorf("%w: namespace %q: want 1–%d of [A-Za-z0-9_-]", ErrInvalidOptions, o.Namespace, maxNamespaceLen)
	}
	if o.HeartbeatInterval < 0 {
		return fmt.Errorf("%w: heartbeat interval %s is negative", ErrInvalidOptions, o.HeartbeatInterval)
	}
	if o.ConnectTimeout < 0 {
		return fmt.Errorf("%w: connect timeout %s is negative", ErrInvalidOptions, o.ConnectTimeout)
	}
	if o.ReconnectWait < 0 {
		return fmt.Errorf("%w: reconnect wait %s is negative", ErrInvalidOptions, o.ReconnectWait)
	}
	return nil
}

func (o Options) isURL() bool {
	return o.Mode != "" && o.Mode != ModeAuto && o.Mode != ModeOff
}

// withDefaults returns o with zero fields replaced by their defaults and the
// namespace derived.
func (o Options) withDefaults() (Options, error) {
	if o.Mode == "" {
		o.Mode = ModeAuto
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.HeartbeatInterval == 0 {
		o.HeartbeatInterval = DefaultHeartbeatInterval
	}
	if o.ConnectTimeout == 0 {
		o.ConnectTimeout = DefaultConnectTimeout
	}
	if o.ReconnectWait == 0 {
		o.ReconnectWait = DefaultReconnectWait
	}
	if o.Position == nil {
		o.Position = func() uint64 { return 0 }
	}
	if o.StateDir != "" {
		abs, err := absDir(o.StateDir)
		if err != nil {
			return o, fmt.Errorf("%w: state dir: %v", ErrInvalidOptions, err)
		}
		o.StateDir = abs
	}
	if o.Namespace == "" {
		o.Namespace = DeriveNamespace(o.StateDir)
	}
	return o, nil
}

// absDir returns dir as an absolute path with symlinks resolved where the
// folder exists, so that two spellings of one folder give one namespace.
func absDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if resolved, err := filepath.EvalSymlinks(abs); err == nil {
		abs = resolved
	}
	return abs, nil
}

// DeriveNamespace returns the namespace used for a state folder when none is
// given: the first 12 hex digits of the SHA-256 of its absolute path (resolve
// it first, as Open does, for a stable answer). The result is subject-safe.
func DeriveNamespace(absStateDir string) string {
	sum := sha256.Sum256([]byte(absStateDir))
	return hex.EncodeToString(sum[:])[:namespaceHashLen]
}
