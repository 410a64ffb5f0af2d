package graphtest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/extract"
	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/projections"
)

// WriteTree writes files (slash path → content) under a fresh folder and
// returns its real path.
func WriteTree(t testing.TB, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, c := range files {
		abs := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

// Extract runs the real extractors over root and applies every payload,
// one graph.file_extracted event each, to a new projection. A file with
// parse errors fails t: a fixture is meant to parse.
func Extract(t testing.TB, root string) *projections.Graph {
	t.Helper()
	g := projections.NewGraph()
	seq := uint64(0)
	_, err := extract.Run(context.Background(), root, extract.Options{}, nil, func(b []graph.FileExtracted, _ []string) error {
		for _, p := range b {
			if len(p.ParseErrors) > 0 {
				t.Errorf("%s: parse errors %v", p.Path, p.ParseErrors)
			}
			data, err := json.Marshal(p)
			if err != nil {
				return err
			}
			seq++
			if err := g.Apply(eventlog.Event{Seq: seq, Stream: graph.Stream, Revision: seq, Type: graph.TypeFileExtracted, Data: data}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return g
}
