package indexing

import (
	"context"
	"strings"
	"testing"

	"github.com/cos-dev/cos/internal/testutil"
)

// While Go packages are type-checked the progress says how many of how
// many (it repeated "extracted N of N changed files" for most of the run),
// and the counts only grow.
func TestIndex_ProgressCountsPackagesChecked(t *testing.T) {
	g := testutil.GitRepo(t, testutil.DemoRepo)
	x, _ := openIndexer(t, t.TempDir(), Options{Roots: []string{g.Root}})
	var seen []Progress
	if _, err := x.IndexWith(context.Background(), g.Root, RunOptions{Report: func(p Progress) { seen = append(seen, p) }}); err != nil {
		t.Fatal(err)
	}
	said, last := false, Progress{}
	for _, p := range seen {
		if p.PackagesChecked < last.PackagesChecked || p.PackagesTotal < last.PackagesTotal || p.PackagesChecked > p.PackagesTotal {
			t.Fatalf("package counts went %d/%d → %d/%d", last.PackagesChecked, last.PackagesTotal, p.PackagesChecked, p.PackagesTotal)
		}
		said = said || strings.HasPrefix(p.Message(), "type-checked ")
		last = p
	}
	if last.PackagesTotal == 0 || last.PackagesChecked != last.PackagesTotal || !said {
		t.Fatalf("progress never counted packages: last %+v (%d reports)", last, len(seen))
	}
}
