package bus

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

func TestOptions_Validate(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name string
		o    Options
		ok   bool
	}{
		{"zero mode is auto", Options{StateDir: dir}, true},
		{"auto", Options{Mode: ModeAuto, StateDir: dir}, true},
		{"off", Options{Mode: ModeOff, StateDir: dir}, true},
		{"off without dir but namespace", Options{Mode: ModeOff, Namespace: "p1"}, true},
		{"url", Options{Mode: "nats://10.0.0.1:4222", StateDir: dir}, true},
		{"url without dir but namespace", Options{Mode: "nats://h:4222", Namespace: "p1"}, true},
		{"bad mode", Options{Mode: "sometimes", StateDir: dir}, false},
		{"http url", Options{Mode: "http://h:80", StateDir: dir}, false},
		{"no dir", Options{}, false},
		{"no dir off without namespace", Options{Mode: ModeOff}, false},
		{"namespace with dot", Options{StateDir: dir, Namespace: "a.b"}, false},
		{"namespace with wildcard", Options{StateDir: dir, Namespace: "*"}, false},
		{"namespace too long", Options{StateDir: dir, Namespace: string(make([]byte, 65))}, false},
		{"negative heartbeat", Options{StateDir: dir, HeartbeatInterval: -time.Second}, false},
		{"negative connect timeout", Options{StateDir: dir, ConnectTimeout: -1}, false},
		{"negative reconnect wait", Options{StateDir: dir, ReconnectWait: -1}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.o.Validate()
			if got := err == nil; got != tc.ok {
				t.Fatalf("Validate() = %v, want ok=%v", err, tc.ok)
			}
			if err != nil && !errors.Is(err, ErrInvalidOptions) {
				t.Fatalf("error %v does not wrap ErrInvalidOptions", err)
			}
		})
	}
}

func TestDeriveNamespace_StableAndSubjectSafe(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	byDir, err := Options{StateDir: dir}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	byLink, err := Options{StateDir: link}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	if byDir.Namespace != byLink.Namespace {
		t.Errorf("namespace via symlink %q != %q", byLink.Namespace, byDir.Namespace)
	}
	if !regexp.MustCompile(`^[0-9a-f]{12}$`).MatchString(byDir.Namespace) {
		t.Errorf("namespace %q is not 12 hex digits", byDir.Namespace)
	}
	other, err := Options{StateDir: t.TempDir()}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	if other.Namespace == byDir.Namespace {
		t.Errorf("two folders share namespace %q", other.Namespace)
	}
	explicit, err := Options{StateDir: dir, Namespace: "proj_1"}.withDefaults()
	if err != nil || explicit.Namespace != "proj_1" {
		t.Errorf("explicit namespace: %q %v", explicit.Namespace, err)
	}
}
