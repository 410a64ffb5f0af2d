package testutil

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// DemoRepo is a small Go + Markdown repository (a module with two
// packages, a non-ASCII identifier and a README with a link), for WriteTree.
var DemoRepo = map[string]string{
	"go.mod": "module example.com/demo\n\ngo 1.22\n",
	"main.go": `package main

import "example.com/demo/util"

func main() {
	run()
}

func run() {
	util.Greet("world")
	Привет()
}
`,
	"hello.go": `package main

import "fmt"

// Привет greets in Russian.
func Привет() { fmt.Println("привет") }
`,
	"util/greet.go": `package util

import "fmt"

// Greet prints a greeting.
func Greet(name string) { fmt.Println("hello", name) }
`,
	"README.md": "# Demo 🚀\n\n## Запуск\n\nRun [main](main.go).\n",
}

// WriteTree writes files (slash-separated path → content) into a fresh
// temporary folder and returns it.
func WriteTree(t testing.TB, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, body := range files {
		abs := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// Envelope is a decoded cos envelope, for tests that read answers as JSON.
type Envelope struct {
	OK    bool           `json:"ok"`
	Data  map[string]any `json:"data"`
	Error struct {
		Category string         `json:"category"`
		Code     string         `json:"code"`
		Message  string         `json:"message"`
		Details  map[string]any `json:"details"`
	} `json:"error"`
}

// FlipEvery flips one byte of every copy of marker in the file at path —
// how a test damages one event of a bbolt log, which is copy-on-write, so
// freed pages may hold older copies of the same record.
func FlipEvery(tb testing.TB, path, marker string) {
	tb.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	n := 0
	for i := bytes.Index(raw, []byte(marker)); i >= 0; i = bytes.Index(raw, []byte(marker)) {
		raw[i] ^= 0x20
		n++
	}
	if n == 0 {
		tb.Fatalf("marker %q not in %s", marker, path)
	}
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		tb.Fatal(err)
	}
}
