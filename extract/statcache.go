package extract

// StatCacheFile is the name of the stat cache inside Options.CacheDir: for
// every file the last run saw, its size, modification time and content
// hash. Readers outside extract (the freshness check of read-your-edits)
// watch its modification time to know when to read it again.
const StatCacheFile = statCacheFile

// StatRecord is what the last run saw of one file: its size in bytes, its
// modification time in Unix nanoseconds, and its SHA-256 (lowercase hex,
// the graph's content hash) — or Binary, when the file was skipped as
// binary and has no hash; Hashed is when the content was read (Unix ns,
// 0 when unknown). A record whose ModTime is within RacyWindow of Hashed
// does not prove the content unchanged.
type StatRecord struct {
	Size    int64
	ModTime int64
	Hash    string
	Binary  bool
	Hashed  int64
}

// ReadStatCache reads the stat cache that Run keeps in dir for the folder
// root (absolute, as Run was given it). It returns the records by
// repo-relative, slash-separated path, and false when there is no cache
// for root: no file, one written for another root or by another version of
// the extractors. A cache that does not decode is false with the error.
// The map is the caller's.
func ReadStatCache(dir, root string) (map[string]StatRecord, bool, error) {
	var s statCache
	ok, err := readGob(dir, statCacheFile, &s)
	if !ok || s.Version != cacheVersion || s.Root != root || s.Stat == nil {
		return nil, false, err
	}
	out := make(map[string]StatRecord, len(s.Stat))
	for p, e := range s.Stat {
		out[p] = StatRecord(e)
	}
	return out, true, nil
}
