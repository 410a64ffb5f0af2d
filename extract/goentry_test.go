package extract_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cos-dev/cos/graph"
)

// entrypointsFixture is a module whose packages register entry points with
// the real frameworks, at the versions its go.mod pins.
const entrypointsFixture = "testdata/entrypoints"

// TestRun_GoEntrypoints indexes the entry points fixture and checks every
// entry node and handled_by edge against its want.txt: net/http, chi, gin,
// echo, gorilla/mux, cobra, urfave/cli v2 and v3, mcp-go, gRPC, NATS,
// gorilla/websocket, coder/websocket, main and init. The frameworks'
// modules are downloaded first when the module cache lacks them; the test
// is skipped only when they cannot be downloaded.
func TestRun_GoEntrypoints(t *testing.T) {
	if testing.Short() {
		t.Skip("downloads the frameworks' modules")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "mod", "download")
	cmd.Dir = entrypointsFixture
	cmd.Env = append(cmd.Environ(), "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local")
	if out, err := cmd.CombinedOutput(); err != nil {
		msg := string(out)
		if strings.Contains(msg, "dial tcp") || strings.Contains(msg, "no such host") || strings.Contains(msg, "GOPROXY=off") || strings.Contains(msg, "proxy") || ctx.Err() != nil {
			t.Skipf("the module proxy is unreachable, the frameworks' modules cannot be downloaded: %v\n%s", err, msg)
		}
		t.Fatalf("go mod download: %v\n%s", err, msg)
	}
	spec := loadWant(t, filepath.Join(entrypointsFixture, wantFile))
	x := runIndex(t, copyFixture(t, entrypointsFixture), t.TempDir(), nil)
	if report := check(spec, x.payloads); report != "" {
		t.Error(report)
	}
}

// TestRun_GoEntrypoints_SyntaxFallback: a package that does not
// type-check keeps its main and init (declarations the syntax names
// exactly) and gains no framework entry point guessed from the text.
func TestRun_GoEntrypoints_SyntaxFallback(t *testing.T) {
	root := t.TempDir()
	writeFixtureFile(t, root, "go.mod", "module example.com/broken\n\ngo 1.22\n")
	writeFixtureFile(t, root, "main.go", `package main

import "net/http"

func init() {}

func handler(w http.ResponseWriter, r *http.Request) {}

func main() {
	http.HandleFunc("/x", handler)
	var n int = "not an int"
	_ = n
}
`)
	x := runIndex(t, root, t.TempDir(), nil)
	p, ok := x.payloads["main.go"]
	if !ok {
		t.Fatalf("main.go not emitted; emitted %v", x.paths())
	}
	var extraction any
	for _, n := range p.Nodes {
		if n.UID == graph.SourceFileUID("main.go") {
			extraction = n.Metadata[graph.MetaExtraction]
		}
	}
	if got := extraction; got != graph.ExtractionSyntax {
		t.Fatalf("main.go extraction = %v, want %s (the fixture must not type-check)", got, graph.ExtractionSyntax)
	}
	var entries []string
	for _, n := range p.Nodes {
		if n.Kind == graph.KindEntrypoint {
			entries = append(entries, n.UID)
		}
	}
	sort.Strings(entries)
	want := []string{"entry:init:main.go::init", "entry:main:main.go::main"}
	if !slices.Equal(entries, want) {
		t.Errorf("entry nodes = %v, want %v", entries, want)
	}
	handled := map[string]string{}
	for _, e := range p.Edges {
		if e.Type == graph.EdgeHandledBy {
			handled[e.Source] = e.Target
		}
	}
	if handled["entry:main:main.go::main"] != "code:function:main.go::main" || handled["entry:init:main.go::init"] != "code:function:main.go::init" || len(handled) != 2 {
		t.Errorf("handled_by edges = %v", handled)
	}
}
