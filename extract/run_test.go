package extract

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cos-dev/cos/extract/lang"
	"github.com/cos-dev/cos/extract/resolve"

	"github.com/cos-dev/cos/graph"
)

// TestRun_Batches checks the batch bounds and that removed paths come with
// the last call only.
func TestRun_Batches(t *testing.T) {
	root := copyTree(t, filepath.Join("testdata", "mixed"))
	var calls [][]graph.FileExtracted
	var removedAt []int
	prev := map[string]string{"gone.go": "0123", "also/gone.md": "4567"}
	_, err := Run(context.Background(), root, Options{BatchFiles: 3}, prev, func(b []graph.FileExtracted, removed []string) error {
		if len(removed) > 0 {
			removedAt = append(removedAt, len(calls))
			if got := strings.Join(removed, ","); got != "also/gone.md,gone.go" {
				t.Errorf("removed = %s", got)
			}
		}
		calls = append(calls, b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for i, b := range calls {
		if len(b) > 3 {
			t.Errorf("batch %d has %d files, want ≤ 3", i, len(b))
		}
		total += len(b)
	}
	w, err := walk(context.Background(), root, DefaultExcludeDirs, DefaultMaxFileSize)
	if err != nil {
		t.Fatal(err)
	}
	if want := len(w.Files); total != want || len(calls) != (want+2)/3 {
		t.Errorf("%d files in %d calls, want %d in %d", total, len(calls), want, (want+2)/3)
	}
	if len(removedAt) != 1 || removedAt[0] != len(calls)-1 {
		t.Errorf("removed paths handed at calls %v, want only the last (%d)", removedAt, len(calls)-1)
	}
}

// TestRun_Progress checks that progress reaches total and never goes back.
func TestRun_Progress(t *testing.T) {
	root := copyTree(t, filepath.Join("testdata", "python"))
	var mu sync.Mutex
	last, total, n := 0, 0, 0
	opts := Options{Progress: func(done, tot int) {
		mu.Lock()
		defer mu.Unlock()
		if done < last || done > tot {
			t.Errorf("progress %d/%d after %d", done, tot, last)
		}
		last, total, n = done, tot, n+1
	}}
	res := index(t, root, opts, nil)
	if n == 0 || last != total || total != res.Stats.FilesSeen {
		t.Errorf("progress ended at %d/%d after %d calls; files seen %d", last, total, n, res.Stats.FilesSeen)
	}
}

// TestWalk_Ignore checks nested .gitignore files, negation-free patterns,
// excluded folder names and .git.
func TestWalk_Ignore(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{
		".gitignore", "keep.go", "skip.log", "a/.gitignore", "a/keep.txt", "a/local.tmp", "a/b/deep.tmp",
		"a/b/keep.go", "b/local.tmp", ".git/config", "node_modules/x.js", "sub/node_modules/y.js", "gen/out.go", "a/gen/in.go",
	} {
		writeFile(t, root, p, []byte("x\n"))
	}
	writeFile(t, root, ".gitignore", []byte("*.log\n/gen/\n"))
	writeFile(t, root, "a/.gitignore", []byte("*.tmp\n"))
	w, err := walk(context.Background(), root, DefaultExcludeDirs, DefaultMaxFileSize)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range w.Files {
		got = append(got, f.Rel)
	}
	want := []string{".gitignore", "a/.gitignore", "a/b/keep.go", "a/gen/in.go", "a/keep.txt", "b/local.tmp", "keep.go"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("walk = %v\nwant   %v", got, want)
	}
}

// FuzzExtractFile feeds arbitrary bytes to every extractor: no panic, every
// uid valid, every string UTF-8.
func FuzzExtractFile(f *testing.F) {
	for _, seed := range []string{"package p\nfunc F() { G() }\n", "def f():\n  g()\n", "class A extends B { m() { this.n() } }", "# T\n[x](y.md#z)\n", `{"a":{"b":1}}`, "a = 1\n[b]\nc = 2\n", "a:\n  b: 1\n", "module m\nrequire x v1\n", "\xff\xfe\x00",
		"package a.b;\nimport static c.D.*;\nclass A<T> extends B implements I { record R(int x) {} T t; void m(C c) { new C() { void n() { n(); } }.n(); super.m(); Runnable r = X::new; c.k().j(); } }",
		"<project><dependencies><dependency><groupId>g</groupId><artifactId>a</artifactId><version>${v}</version></dependency></dependencies></project>",
		"dependencies {\n implementation 'g:a:1'\n}\n"} {
		f.Add(seed)
	}
	exts := []string{"x.go", "x.c", "x.h", "x.cc", "x.rs", "x.py", "x.js", "x.ts", "x.tsx", "x.md", "x.json", "x.toml", "x.yaml", "go.mod", "package.json", "Cargo.toml", "pyproject.toml", "requirements.txt", ".mcp.json", "x.java", "pom.xml", "build.gradle", "build.gradle.kts", "x.php", "composer.json", "x.rb", "Gemfile", "x.gemspec", "x.cs", "App.csproj", "x.kt", "x.kts", "settings.gradle.kts", "x.scala", "x.sc", "build.sbt", "x.swift", "Package.swift"}
	e := &lang.Env{Modules: lang.NewGoModules(map[string]string{"": "m"}), Files: map[string]bool{"y.md": true}, MaxDepth: DefaultMaxConfigDepth}
	f.Fuzz(func(t *testing.T, src string) {
		payloads := map[string]graph.FileExtracted{}
		for _, p := range exts {
			fr := extractFile(p, []byte(src), "h", e)
			resolve.Resolve(fr, resolve.NewTable(map[string]*lang.Decl{}, nil, e.Modules))
			payloads[p] = payload(fr)
		}
		checkPayloads(t, payloads)
	})
}
