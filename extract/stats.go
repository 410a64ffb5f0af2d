package extract

import (
	"sort"
	"time"
)

// Stats describe one Run. They feed the CLI summary line and doctor's
// informational categories (slowest_extractions, files_with_parse_errors).
type Stats struct {
	// FilesSeen counts regular files the walk accepted (before the binary
	// sniff); skipped and failed files are counted apart. A targeted run
	// (Options.Only) counts the files at or under its Only paths.
	FilesSeen int `json:"files_seen"`
	// FilesChanged counts files emitted because their content hash differs
	// from the previous map (new or edited).
	FilesChanged int `json:"files_changed"`
	// FilesReextracted counts unchanged files emitted again because a
	// declaration they resolve against changed.
	FilesReextracted int `json:"files_reextracted"`
	// FilesKept counts, on a run cancelled while Go packages were checked,
	// the files it emitted all the same (those of the packages extracted
	// and of other languages); FilesChanged and FilesReextracted then
	// count only those, and the vanished files are left to the next run.
	FilesKept int `json:"files_kept,omitempty"`
	// FilesRemoved counts paths of the previous map that vanished (deleted,
	// now ignored, binary or too large).
	FilesRemoved int `json:"files_removed"`
	// FilesFailed counts files or folders that could not be read.
	FilesFailed int `json:"files_failed"`
	// FilesSkipped counts files skipped as too large, binary, symlinks or
	// special files.
	FilesSkipped int `json:"files_skipped"`
	// Nodes and Edges count what the emitted payloads carry.
	Nodes int `json:"nodes"`
	Edges int `json:"edges"`
	// Batches counts emit calls.
	Batches int `json:"batches"`
	// Duration is the wall time of the whole Run.
	Duration time.Duration `json:"duration_ns"`
	// Slowest are the slowest extractions of this run, slowest first.
	Slowest []Timing `json:"slowest_extractions"`
	// FilesWithParseErrors counts emitted files whose payload carries
	// ParseErrors (partial results are kept).
	FilesWithParseErrors int `json:"files_with_parse_errors"`
	// ParseErrorPaths lists up to maxNotes of those files.
	ParseErrorPaths []string `json:"parse_error_paths,omitempty"`
	// GoPackagesChecked counts the Go packages type-checked in this run,
	// the tree's and the ones they import; 0 when no Go file changed.
	GoPackagesChecked int `json:"go_packages_checked"`
	// GoFilesTyped counts emitted Go files whose edges come from go/types.
	GoFilesTyped int `json:"go_files_typed"`
	// GoFallback counts emitted Go files that kept their syntax edges, by
	// reason (graph.FallbackLoadError, FallbackTypeError,
	// FallbackBuildExcluded, FallbackNotInPackage).
	GoFallback map[string]int `json:"go_fallback,omitempty"`
	// Phases is where the run's wall time went, in order: walk, hashing,
	// extraction, go list, type-checking, implements, resolution, the
	// time emit took (appending to the log), saving the cache.
	Phases []Phase `json:"phases,omitempty"`
	// Skipped and Failed list up to maxNotes files each, with the reason.
	Skipped []FileNote `json:"skipped,omitempty"`
	Failed  []FileNote `json:"failed,omitempty"`
	// Git says which file set a full run walked when the root lies in a git
	// work tree (nil outside one, and for a targeted run).
	Git *GitStats `json:"git,omitempty"`
}

// GitStats is the git file set a run walked: the work tree's top folder,
// which implementation listed it (gitfiles.SourceGit or SourceGoGit), why
// go-git answered although git is on PATH (Note), and how many files git
// keeps under the root before the excluded folders, the size limit and the
// other skips.
type GitStats struct {
	Top    string `json:"top"`
	Source string `json:"source"`
	Note   string `json:"note,omitempty"`
	Kept   int    `json:"kept"`
}

// Phase is the wall time of one step of Run, summed when it repeats.
type Phase struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"seconds"`
}

// Timing is how long one file's extraction took.
type Timing struct {
	Path string  `json:"path"`
	MS   float64 `json:"ms"`
}

// maxNotes bounds the Skipped, Failed and ParseErrorPaths lists.
const maxNotes = 100

// slowest keeps the n largest timings.
type slowest struct {
	n int
	t []Timing
}

func (s *slowest) add(path string, ms float64) {
	if len(s.t) == s.n && s.n > 0 && s.t[len(s.t)-1].MS >= ms {
		return
	}
	s.t = append(s.t, Timing{Path: path, MS: ms})
	sort.SliceStable(s.t, func(i, j int) bool { return s.t[i].MS > s.t[j].MS })
	if len(s.t) > s.n {
		s.t = s.t[:s.n]
	}
}

func capNotes(n []FileNote) []FileNote {
	if len(n) > maxNotes {
		return n[:maxNotes]
	}
	return n
}
