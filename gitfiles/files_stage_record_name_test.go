package gitfiles

import (
	"context"
	"strings"
	"testing"

	"github.com/cos-dev/cos/internal/testutil"
)

// TestLoad_UntrackedNameLikeStagedRecord: an untracked file whose name
// reads like a `git ls-files --stage` record ("<mode> <object> <stage>\t
// <path>") is that file, not the path after its tab: an ignored file must
// not be kept through it, and the file itself must be.
func TestLoad_UntrackedNameLikeStagedRecord(t *testing.T) {
	g := testutil.GitRepo(t, map[string]string{
		".gitignore": "secret.py\n",
		"real.py":    "x = 1\n",
	})
	t.Setenv("HOME", g.Home)
	g.Write("secret.py", "TOKEN = 1\n")
	spoof := "100644 " + strings.Repeat("0", 40) + " 0\tsecret.py"
	g.Write(spoof, "y = 2\n")
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			s, err := Load(context.Background(), g.Root, b.opts...)
			if err != nil {
				t.Fatal(err)
			}
			if s.Has("secret.py") {
				t.Errorf("Load keeps the ignored secret.py: %q", s.files)
			}
			if !s.Has(spoof) {
				t.Errorf("Load lost the untracked %q: %q", spoof, s.files)
			}
			kept, err := Keep(context.Background(), g.Root, []string{"secret.py", spoof}, b.opts...)
			if err != nil {
				t.Fatal(err)
			}
			if len(kept) != 1 || kept[0] != spoof {
				t.Errorf("Keep = %q, want only %q", kept, spoof)
			}
		})
	}
}
