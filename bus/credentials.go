package bus

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// AuthFile is the file, inside the state folder, that holds the user name
// and password of the embedded NATS server: JSON {"user", "password"},
// mode 0600 (readable and writable by its owner only). The first host
// generates it; every cos process of the folder reads it to connect, and
// the server refuses a connection without it.
const AuthFile = "nats-auth.json"

// authFileMode is the only mode AuthFile is written with.
const authFileMode fs.FileMode = 0o600

// authUser is the user name of the embedded server's one account.
const authUser = "cos"

// passwordBytes is the number of random bytes in a generated password (64
// hex digits).
const passwordBytes = 32

// credentials are the embedded server's user name and password.
type credentials struct {
	User     string `json:"user"`
	Password string `json:"password"`
}

func (c credentials) valid() bool { return c.User != "" && len(c.Password) >= 32 }

// newCredentials returns a fresh random password for authUser.
func newCredentials() credentials {
	var r [passwordBytes]byte
	_, _ = rand.Read(r[:]) // crypto/rand.Read never fails
	return credentials{User: authUser, Password: hex.EncodeToString(r[:])}
}

// errAuthMissing is returned by readCredentials when AuthFile does not
// exist, does not parse or holds no password.
var errAuthMissing = errors.New("no valid " + AuthFile)

// readCredentials reads <dir>/nats-auth.json and reports its mode. A
// missing or malformed file is errAuthMissing.
func readCredentials(dir string) (credentials, fs.FileMode, error) {
	path := filepath.Join(dir, AuthFile)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return credentials{}, 0, errAuthMissing
	}
	if err != nil {
		return credentials{}, 0, fmt.Errorf("read %s: %w", AuthFile, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return credentials{}, 0, fmt.Errorf("read %s: %w", AuthFile, err)
	}
	var c credentials
	dec := json.NewDecoder(f)
	if err := dec.Decode(&c); err != nil || !c.valid() {
		return credentials{}, st.Mode().Perm(), errAuthMissing
	}
	return c, st.Mode().Perm(), nil
}

// ownerOnly reports whether mode lets nobody but the owner in.
func ownerOnly(mode fs.FileMode) bool { return mode&0o077 == 0 }

// hostCredentials returns the credentials a new host starts its server
// with: the recorded ones, so that clients reconnecting after a takeover
// still get in, unless the file is missing, malformed or readable by
// others (then the password may have leaked: a new one is generated and
// written with mode 0600).
func (b *Bus) hostCredentials() (credentials, error) {
	c, mode, err := readCredentials(b.opts.StateDir)
	switch {
	case err == nil && ownerOnly(mode):
		return c, nil
	case err == nil:
		b.opts.Logger.Warn("bus: "+AuthFile+" was readable by other users; generating a new password", "mode", mode.String())
	case !errors.Is(err, errAuthMissing):
		return credentials{}, err
	}
	c = newCredentials()
	if err := writeCredentials(b.opts.StateDir, c); err != nil {
		return credentials{}, err
	}
	return c, nil
}

// keepCredentials rewrites AuthFile when this process hosts and the file no
// longer holds its server's credentials with mode 0600 (deleted, replaced
// or opened up by hand), so that new processes can still connect and
// nobody else can read it. It runs on the heartbeat goroutine.
func (b *Bus) keepCredentials() {
	b.mu.Lock()
	hosting, want := b.srv != nil, b.creds
	b.mu.Unlock()
	if !hosting {
		return
	}
	c, mode, err := readCredentials(b.opts.StateDir)
	if err == nil && c == want && ownerOnly(mode) {
		return
	}
	b.opts.Logger.Warn("bus: " + AuthFile + " does not hold this host's credentials with mode 0600; rewriting it")
	if err := writeCredentials(b.opts.StateDir, want); err != nil {
		b.opts.Logger.Error("bus: rewrite "+AuthFile, "err", err)
	}
}

// writeCredentials replaces <dir>/nats-auth.json atomically with mode 0600.
func writeCredentials(dir string, c credentials) error {
	raw, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", AuthFile, err)
	}
	return writeFileAtomic(dir, AuthFile, append(raw, '\n'), authFileMode)
}

// clientCredentials is the UserInfoHandler of a connection to this state
// folder's embedded server: it reads AuthFile on every (re)connect, so a
// client follows a new host's password after a takeover. An unreadable file
// gives empty credentials, which the server refuses; the client retries.
func (b *Bus) clientCredentials() (string, string) {
	c, mode, err := readCredentials(b.opts.StateDir)
	if err != nil {
		// Logged at debug level: a client retries every ReconnectWait,
		// and the server's refusal is what the caller sees.
		b.opts.Logger.Debug("bus: cannot read the embedded server's credentials", "err", err)
		return "", ""
	}
	if !ownerOnly(mode) {
		b.opts.Logger.Warn("bus: "+AuthFile+" is readable by other users; the host replaces it", "mode", mode.String())
	}
	return c.User, c.Password
}

// redactURL returns u with any password (or a token given as the user
// name) replaced by "xxxxx", for logs, errors and health.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		if err != nil && strings.Contains(s, "@") {
			return "(a URL that does not parse)"
		}
		return s
	}
	if _, hasPassword := u.User.Password(); hasPassword {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	} else {
		u.User = url.User("xxxxx")
	}
	return u.String()
}
