package bus

import (
	"context"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
)

// embeddedURL returns the URL nats.json records for dir.
func embeddedURL(t testing.TB, dir string) string {
	t.Helper()
	rec, ok, err := readRecord(dir)
	if err != nil || !ok {
		t.Fatalf("record: ok=%v err=%v", ok, err)
	}
	return rec.URL
}

// plainConnect connects a plain nats.go client (not a Bus) to u.
func plainConnect(t testing.TB, u string, opts ...nats.Option) (*nats.Conn, error) {
	t.Helper()
	opts = append(opts, nats.Timeout(2*time.Second), nats.MaxReconnects(0))
	nc, err := nats.Connect(u, opts...)
	if err == nil {
		t.Cleanup(nc.Close)
	}
	return nc, err
}

// A client without the state folder's credentials, or with a wrong
// password, is refused by the embedded server; with them it gets in.
func TestBus_Embedded_RefusesUnauthenticatedClient(t *testing.T) {
	dir := t.TempDir()
	openBus(t, Options{StateDir: dir, Logger: discardLogger()})
	u := embeddedURL(t, dir)

	if _, err := plainConnect(t, u); !errors.Is(err, nats.ErrAuthorization) {
		t.Fatalf("connect without credentials: %v, want %v", err, nats.ErrAuthorization)
	}
	if _, err := plainConnect(t, u, nats.UserInfo(authUser, "not-the-password")); !errors.Is(err, nats.ErrAuthorization) {
		t.Fatalf("connect with a wrong password: %v, want %v", err, nats.ErrAuthorization)
	}
	if _, err := plainConnect(t, u, nats.Token("guess")); !errors.Is(err, nats.ErrAuthorization) {
		t.Fatalf("connect with a token: %v, want %v", err, nats.ErrAuthorization)
	}
	c, _, err := readCredentials(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := plainConnect(t, u, nats.UserInfo(c.User, c.Password)); err != nil {
		t.Fatalf("connect with the folder's credentials: %v", err)
	}
}

// The credentials file is written with mode 0600, holds a generated
// password, and is kept across hosts (so clients reconnect after a
// takeover).
func TestBus_CredentialsFile_OwnerOnly(t *testing.T) {
	dir := t.TempDir()
	host := openBus(t, Options{StateDir: dir, Logger: discardLogger()})
	st, err := os.Stat(filepath.Join(dir, AuthFile))
	if err != nil {
		t.Fatal(err)
	}
	if got := st.Mode().Perm(); got != 0o600 {
		t.Fatalf("%s mode %v, want -rw-------", AuthFile, got)
	}
	c1, _, err := readCredentials(dir)
	if err != nil || c1.User != authUser || len(c1.Password) != 2*passwordBytes {
		t.Fatalf("credentials %+v (%v), want user %q and a %d-digit password", c1, err, authUser, 2*passwordBytes)
	}
	if err := host.Close(); err != nil {
		t.Fatal(err)
	}
	openBus(t, Options{StateDir: dir, Logger: discardLogger()})
	if c2, _, _ := readCredentials(dir); c2 != c1 {
		t.Fatal("a new host changed the password of an owner-only credentials file")
	}
	for _, name := range []string{AuthFile, RecordFile} {
		if strings.Contains(name, c1.Password) {
			t.Fatal("password in a file name")
		}
	}
	if raw, _ := os.ReadFile(filepath.Join(dir, RecordFile)); strings.Contains(string(raw), c1.Password) {
		t.Fatalf("%s holds the password", RecordFile)
	}
}

// A credentials file that others can read, or that is damaged, is replaced
// by a new host with a fresh password and mode 0600; a file opened up while
// a host runs is set back to 0600 with the running server's password.
func TestBus_CredentialsFile_LeakedOrDamaged_Replaced(t *testing.T) {
	cases := []struct {
		name    string
		content string
		mode    os.FileMode
	}{
		{"world readable", `{"user":"cos","password":"` + strings.Repeat("ab", passwordBytes) + `"}`, 0o644},
		{"not json", `{"user":`, 0o600},
		{"empty password", `{"user":"cos","password":""}`, 0o600},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, AuthFile)
			if err := os.WriteFile(path, []byte(tc.content), tc.mode); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(path, tc.mode); err != nil { // past the umask
				t.Fatal(err)
			}
			openBus(t, Options{StateDir: dir, Logger: discardLogger()})
			c, mode, err := readCredentials(dir)
			if err != nil || mode != 0o600 || strings.Contains(tc.content, c.Password) {
				t.Fatalf("after host start: mode %v, err %v, password reused=%v; want a new password, mode 0600",
					mode, err, strings.Contains(tc.content, c.Password))
			}
			if _, err := plainConnect(t, embeddedURL(t, dir), nats.UserInfo(c.User, c.Password)); err != nil {
				t.Fatalf("connect with the new credentials: %v", err)
			}
		})
	}

	t.Run("opened up while hosting", func(t *testing.T) {
		dir := t.TempDir()
		openBus(t, Options{StateDir: dir, HeartbeatInterval: 20 * time.Millisecond, Logger: discardLogger()})
		before, _, _ := readCredentials(dir)
		if err := os.Chmod(filepath.Join(dir, AuthFile), 0o644); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "mode set back to 0600", func() bool {
			c, mode, err := readCredentials(dir)
			return err == nil && mode == 0o600 && c == before
		})
		if err := os.Remove(filepath.Join(dir, AuthFile)); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "file rewritten", func() bool {
			c, mode, err := readCredentials(dir)
			return err == nil && mode == 0o600 && c == before
		})
	})
}

// A URL given as the mode may carry credentials (user:password or a
// token); it is used as given, and State, errors and logs never show the
// secret.
func TestBus_URLMode_CarriesCredentials(t *testing.T) {
	dir := t.TempDir()
	host := openBus(t, Options{StateDir: dir, Logger: discardLogger()})
	c, _, err := readCredentials(dir)
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(embeddedURL(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(c.User, c.Password)
	ext := openBus(t, Options{Mode: u.String(), Namespace: host.Namespace(), Logger: discardLogger()})
	st := ext.State()
	if !st.Connected || st.Mode != StateURL {
		t.Fatalf("state %+v", st)
	}
	if strings.Contains(st.URL, c.Password) || !strings.Contains(st.URL, "xxxxx") {
		t.Fatalf("State().URL %q shows the password", st.URL)
	}

	// Without the credentials in the URL the server refuses it.
	u.User = nil
	_, err = Open(context.Background(), Options{Mode: u.String(), Namespace: "x", ConnectTimeout: 300 * time.Millisecond,
		Logger: discardLogger()})
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Open without credentials = %v, want ErrUnavailable", err)
	}
	// A refused URL with a password never shows it in the error.
	u.User = url.UserPassword("cos", "sekrit-password")
	_, err = Open(context.Background(), Options{Mode: u.String(), Namespace: "x", ConnectTimeout: 300 * time.Millisecond,
		Logger: discardLogger()})
	if err == nil || strings.Contains(err.Error(), "sekrit-password") {
		t.Fatalf("Open with a wrong password = %v, want an error without the password", err)
	}
}

func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"nats://127.0.0.1:4222":            "nats://127.0.0.1:4222",
		"nats://cos:pw@127.0.0.1:4222":     "nats://cos:xxxxx@127.0.0.1:4222",
		"nats://s3cr3t-token@example:4222": "nats://xxxxx@example:4222",
		"auto":                             "auto",
	} {
		if got := redactURL(in); got != want {
			t.Errorf("redactURL(%q) = %q, want %q", in, got, want)
		}
	}
	if got := redactURL("nats://a:%zz@h:1"); strings.Contains(got, "%zz") {
		t.Errorf("redactURL of a bad URL = %q, leaks it", got)
	}
}

// The doorbell subscription hands over only the Cos-Seq header: a body is
// never read, and a message without a valid header is skipped.
func TestBus_SubscribeSeqs_HeaderOnly(t *testing.T) {
	dir := t.TempDir()
	b := openBus(t, Options{StateDir: dir, Logger: discardLogger()})
	got := make(chan uint64, 16)
	unsub, err := b.SubscribeSeqs(EventsSubject(b.Namespace(), ">"), func(seq uint64) { got <- seq })
	if err != nil {
		t.Fatal(err)
	}
	defer unsub()
	c, _, err := readCredentials(dir)
	if err != nil {
		t.Fatal(err)
	}
	nc, err := plainConnect(t, embeddedURL(t, dir), nats.UserInfo(c.User, c.Password))
	if err != nil {
		t.Fatal(err)
	}
	// One connection keeps its order: the bad messages reach the server
	// before the good one.
	subj := EventsSubject(b.Namespace(), "task.created")
	for _, hdr := range []string{"", "x", "0", "-1", "7"} {
		m := nats.NewMsg(subj)
		if hdr != "" {
			m.Header.Set(HeaderSeq, hdr)
		}
		m.Data = []byte(`{"seq":99}`)
		if err := nc.PublishMsg(m); err != nil {
			t.Fatal(err)
		}
	}
	if seq := receive(t, got, "doorbell"); seq != 7 {
		t.Fatalf("doorbell %d, want 7 (only valid %s headers, never the body)", seq, HeaderSeq)
	}
	if err := b.Publish(context.Background(), testEvent(8, "task.updated", "task:TASK-001")); err != nil {
		t.Fatal(err)
	}
	if seq := receive(t, got, "doorbell"); seq != 8 {
		t.Fatalf("doorbell %d, want 8", seq)
	}
}
