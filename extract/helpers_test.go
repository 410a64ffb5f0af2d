package extract

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cos-dev/cos/graph"
)

// indexResult is everything one Run handed to emit.
type indexResult struct {
	Payloads map[string]graph.FileExtracted
	Removed  []string
	Stats    Stats
	Calls    int
}

// index runs Run over root and collects what emit received. It fails the
// test on an error and checks the payload invariants.
func index(t testing.TB, root string, opts Options, previous map[string]string) indexResult {
	t.Helper()
	res := indexResult{Payloads: map[string]graph.FileExtracted{}}
	st, err := Run(context.Background(), root, opts, previous, func(batch []graph.FileExtracted, removed []string) error {
		res.Calls++
		for _, p := range batch {
			if _, dup := res.Payloads[p.Path]; dup {
				t.Errorf("path %s emitted twice", p.Path)
			}
			res.Payloads[p.Path] = p
		}
		res.Removed = append(res.Removed, removed...)
		return nil
	})
	if err != nil {
		t.Fatalf("Run(%s): %v", root, err)
	}
	res.Stats = st
	checkPayloads(t, res.Payloads)
	return res
}

// checkPayloads verifies what every payload must satisfy: valid uids,
// valid UTF-8 strings, no duplicate nodes or edges, no self loops but
// recursive calls.
func checkPayloads(t testing.TB, payloads map[string]graph.FileExtracted) {
	t.Helper()
	bad := 0
	report := func(format string, args ...any) {
		bad++
		if bad <= 20 {
			t.Errorf(format, args...)
		}
	}
	for _, p := range payloads {
		if !utf8.ValidString(p.Path) {
			report("path %q not UTF-8", p.Path)
		}
		for _, e := range p.ParseErrors {
			if !utf8.ValidString(e) {
				report("%s: parse error not UTF-8: %q", p.Path, e)
			}
		}
		seen := map[string]bool{}
		for _, n := range p.Nodes {
			if err := graph.ValidateUID(n.UID); err != nil {
				report("%s: %v", p.Path, err)
			}
			if seen[n.UID] {
				report("%s: node %s twice", p.Path, n.UID)
			}
			seen[n.UID] = true
			for _, s := range []string{n.Label, n.Path, n.Kind, n.Extractor} {
				if !utf8.ValidString(s) {
					report("%s: node %s has a non-UTF-8 string %q", p.Path, n.UID, s)
				}
			}
			for k, v := range n.Metadata {
				if s, ok := v.(string); ok && !utf8.ValidString(s) {
					report("%s: node %s metadata %s not UTF-8", p.Path, n.UID, k)
				}
			}
			if n.Extractor == "" {
				report("%s: node %s has no extractor", p.Path, n.UID)
			}
		}
		seenE := map[graph.EdgeKey]bool{}
		for _, e := range p.Edges {
			for _, u := range []string{e.Source, e.Target} {
				if err := graph.ValidateUID(u); err != nil {
					report("%s: edge: %v", p.Path, err)
				}
			}
			if e.Source == e.Target && e.Type != graph.EdgeCalls {
				report("%s: self loop %s %s", p.Path, e.Type, e.Source)
			}
			if seenE[e.Key()] {
				report("%s: edge %v twice", p.Path, e.Key())
			}
			seenE[e.Key()] = true
			if e.Extractor == "" {
				report("%s: edge %v has no extractor", p.Path, e.Key())
			}
		}
	}
}

// dangling returns the edges whose source or target is in no payload.
func dangling(payloads map[string]graph.FileExtracted) []graph.EdgeKey {
	nodes := map[string]bool{}
	for _, p := range payloads {
		for _, n := range p.Nodes {
			nodes[n.UID] = true
		}
	}
	var out []graph.EdgeKey
	for _, p := range payloads {
		for _, e := range p.Edges {
			if !nodes[e.Source] || !nodes[e.Target] {
				out = append(out, e.Key())
			}
		}
	}
	return out
}

// hashes returns path → content hash of payloads, the "previous" map of the
// next run.
func hashes(payloads map[string]graph.FileExtracted) map[string]string {
	m := map[string]string{}
	for p, pl := range payloads {
		m[p] = pl.ContentHash
	}
	return m
}

// render prints payloads in a stable, diffable text form for golden files.
func render(payloads map[string]graph.FileExtracted) string {
	var b strings.Builder
	paths := make([]string, 0, len(payloads))
	for p := range payloads {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		pl := payloads[p]
		fmt.Fprintf(&b, "== %s [%s]\n", p, pl.Extractor)
		for _, e := range pl.ParseErrors {
			fmt.Fprintf(&b, "error %s\n", e)
		}
		var lines []string
		for _, n := range pl.Nodes {
			l := fmt.Sprintf("node %s kind=%s label=%q", n.UID, n.Kind, n.Label)
			if n.Line > 0 {
				l += fmt.Sprintf(" line=%d", n.Line)
			}
			if n.Metadata["stub"] == true {
				l += " stub"
			}
			if n.Extractor != pl.Extractor {
				l += " by=" + n.Extractor
			}
			lines = append(lines, l)
		}
		sort.Strings(lines)
		b.WriteString(strings.Join(lines, "\n"))
		b.WriteString("\n")
		lines = lines[:0]
		for _, e := range pl.Edges {
			l := fmt.Sprintf("edge %s %s -> %s", e.Type, e.Source, e.Target)
			if e.Extractor != pl.Extractor {
				l += " by=" + e.Extractor
			}
			if v, ok := e.Metadata["version"]; ok {
				l += fmt.Sprintf(" version=%v", v)
			}
			lines = append(lines, l)
		}
		sort.Strings(lines)
		b.WriteString(strings.Join(lines, "\n"))
		b.WriteString("\n")
	}
	return b.String()
}

// copyTree copies the fixture folder src into a fresh temporary folder.
func copyTree(t testing.TB, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func writeFile(t testing.TB, root, rel string, data []byte) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// flagValue returns the value of a registered command-line flag, "" if none.
func flagValue(name string) string {
	if f := flag.Lookup(name); f != nil {
		return f.Value.String()
	}
	return ""
}

// conflicting returns the uids emitted by several payloads with different
// kind, label, path or metadata: the projection ref-counts shared nodes, so
// they must agree (the extractor id may differ).
func conflicting(payloads map[string]graph.FileExtracted) []string {
	first := map[string]string{}
	var out []string
	for _, p := range keys(payloads) {
		for _, n := range payloads[p].Nodes {
			n.Extractor = ""
			data, _ := json.Marshal(n)
			if prev, ok := first[n.UID]; ok && prev != string(data) {
				out = append(out, n.UID)
				continue
			}
			first[n.UID] = string(data)
		}
	}
	return out
}

// orphans returns the nodes no edge of any payload touches (doctor's
// orphaned_inrepo / orphaned_phantom).
func orphans(payloads map[string]graph.FileExtracted) []string {
	touched := map[string]bool{}
	for _, p := range payloads {
		for _, e := range p.Edges {
			touched[e.Source] = true
			touched[e.Target] = true
		}
	}
	var out []string
	for _, p := range payloads {
		for _, n := range p.Nodes {
			if !touched[n.UID] {
				out = append(out, n.UID)
			}
		}
	}
	return out
}
