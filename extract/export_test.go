package extract

import (
	"testing"
)

// SetCacheVersionForTest rewrites the stat cache in dir as if an extractor
// of cache version v had written it.
func SetCacheVersionForTest(t testing.TB, dir string, v int) {
	t.Helper()
	var s statCache
	ok, err := readGob(dir, statCacheFile, &s)
	if !ok || err != nil {
		t.Fatalf("read stat cache: %v %v", ok, err)
	}
	s.Version = v
	if err := writeGob(dir, statCacheFile, &s); err != nil {
		t.Fatal(err)
	}
}
