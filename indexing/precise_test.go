package indexing

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/cos-dev/cos/extract"
)

// A file of an indexer's language that cos skips (over the size limit)
// does not make cos run the indexer.
func TestLanguagesIn_SkipsTooLargeFiles(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "big.py"), make([]byte, extract.DefaultMaxFileSize+1), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "a.ts"), []byte("export const a = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	need := languagesIn(context.Background(), root, nil)
	if need["scip-python"] || !need["scip-typescript"] {
		t.Fatalf("indexers to run = %v, want scip-typescript only", need)
	}
}
