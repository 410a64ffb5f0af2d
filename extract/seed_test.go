package extract

import (
	"path/filepath"
	"slices"
	"testing"
)

// A second checkout of a tree, its cache seeded from the first's, emits
// only the file that differs; unseeded it emits every Go file. A folder
// that holds a cache already is left alone.
func TestSeedCache_SecondCheckoutExtractsTheDifference(t *testing.T) {
	main := t.TempDir()
	writeFile(t, main, "go.mod", []byte("module example.com/m\n\ngo 1.22\n"))
	writeFile(t, main, "a/a.go", []byte("package a\n\nfunc A() int { return 1 }\n"))
	writeFile(t, main, "a/b.go", []byte("package a\n\nfunc B() int { return A() }\n"))
	writeFile(t, main, "c/c.go", []byte("package c\n\nfunc C() int { return 3 }\n"))
	mainCache := filepath.Join(t.TempDir(), "main-cache")
	first := index(t, main, Options{CacheDir: mainCache}, nil)
	previous := hashes(first.Payloads)

	other := copyTree(t, main)
	writeFile(t, other, "c/c.go", []byte("package c\n\nfunc C() int { return 4 }\n"))

	unseeded := index(t, other, Options{CacheDir: filepath.Join(t.TempDir(), "cold")}, previous)
	if got := keys(unseeded.Payloads); !slices.Contains(got, "a/a.go") {
		t.Fatalf("unseeded run emitted %v; the test expects a cold cache to emit unchanged files too", got)
	}

	dir := filepath.Join(t.TempDir(), "seeded")
	seeded, err := SeedCache(dir, other, mainCache, main)
	if err != nil || !seeded {
		t.Fatalf("SeedCache = %v, %v; want a seeded cache", seeded, err)
	}
	warm := index(t, other, Options{CacheDir: dir}, previous)
	if got, want := keys(warm.Payloads), []string{"c/c.go"}; !slices.Equal(got, want) {
		t.Fatalf("seeded run emitted %v, want %v", got, want)
	}
	if again, err := SeedCache(dir, other, mainCache, main); err != nil || again {
		t.Fatalf("SeedCache over an existing cache = %v, %v; want false", again, err)
	}
	if none, err := SeedCache(filepath.Join(t.TempDir(), "x"), other, filepath.Join(t.TempDir(), "empty"), main); err != nil || none {
		t.Fatalf("SeedCache from no cache = %v, %v; want false", none, err)
	}
	if wrong, err := SeedCache(filepath.Join(t.TempDir(), "y"), other, mainCache, other); err != nil || wrong {
		t.Fatalf("SeedCache from a cache of another root = %v, %v; want false", wrong, err)
	}
}
