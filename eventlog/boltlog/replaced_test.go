package boltlog

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/cos-dev/cos/eventlog"
)

// A file replaced under an open handle by an older copy — or by another
// log as long as the one it wrote — is refused by the handle's next write
// (an *eventlog.IntegrityError, nothing written), not extended with the
// seqs of events it had acknowledged.
func TestAppend_FileReplacedUnderTheHandle(t *testing.T) {
	ctx := context.Background()
	one := func(s string) eventlog.AppendRequest {
		return eventlog.AppendRequest{Stream: "task:TASK-001", Events: []eventlog.Payload{{Type: "test.appended", Data: []byte(`{"v":"` + s + `"}`)}}}
	}
	for _, tc := range []struct {
		name    string
		replace func(t *testing.T, path string, older []byte)
	}{
		{"an older copy", func(t *testing.T, path string, older []byte) {
			if err := os.WriteFile(path+".tmp", older, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(path+".tmp", path); err != nil {
				t.Fatal(err)
			}
		}},
		{"another log as long", func(t *testing.T, path string, _ []byte) {
			other, opath := openTestLog(t, Options{})
			for _, s := range []string{"x", "y", "z"} {
				if _, err := eventlog.AppendOne(ctx, other, one(s)); err != nil {
					t.Fatal(err)
				}
			}
			b, err := os.ReadFile(opath)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path+".tmp", b, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(path+".tmp", path); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, path := openTestLog(t, Options{})
			if _, err := eventlog.AppendOne(ctx, l, one("a")); err != nil {
				t.Fatal(err)
			}
			older, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range []string{"b", "c"} {
				if _, err := eventlog.AppendOne(ctx, l, one(s)); err != nil {
					t.Fatal(err)
				}
			}
			tc.replace(t, path, older)
			_, err = eventlog.AppendOne(ctx, l, one("d"))
			if !errors.Is(err, eventlog.ErrIntegrity) {
				t.Fatalf("Append onto a replaced file = %v; want an integrity error", err)
			}
		})
	}
}

// Another handle's writes between two of this handle's are not a
// replacement: the handle finds its last commit below them and writes on.
func TestAppend_OthersWritesAreNotAReplacement(t *testing.T) {
	ctx := context.Background()
	req := eventlog.AppendRequest{Stream: "s", Events: []eventlog.Payload{{Type: "test.appended", Data: []byte(`{}`)}}}
	a, path := openTestLog(t, Options{})
	b, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = b.Close(ctx) }()
	for i := range 6 {
		l := a
		if i%3 != 0 {
			l = b
		}
		if _, err := eventlog.AppendOne(ctx, l, req); err != nil {
			t.Fatalf("append %d: %v", i, err)
		}
	}
}
