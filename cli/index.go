package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/cos-dev/cos/extract"
	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/indexing"
	"github.com/cos-dev/cos/projections"
	"github.com/cos-dev/cos/state"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
)

// progressThrottle is how often the progress bar redraws.
const progressThrottle = 100 * time.Millisecond

// summarySlowest is how many slowest extractions the summary line names.
const summarySlowest = 3

func (a *app) indexCommand() *cobra.Command {
	var (
		f      serverFlags
		asJSON bool
		noBar  bool
		pf     preciseFlags
		fileTO time.Duration
		force  bool
		watch  bool
		name   string
		remove string
	)
	cmd := &cobra.Command{
		Use:   "index [PATH...]",
		Short: "Index repositories into the code/doc graph (default: the working directory)",
		Long: "Walk each PATH (default the working directory), honouring .gitignore, extract every file whose content changed " +
			"since the last index, and append one graph.file_extracted event per changed file and graph.file_removed per " +
			"vanished one. On a terminal a progress bar runs on stderr; the summary line goes to stdout: files seen / " +
			"changed / removed / failed / skipped (the first skipped files named, with why: a file over --max-file-size, " +
			"2 MiB by default, is not read), the graph's nodes and edges after the run, events and bytes appended, seconds, the slowest extractions.\n\n" +
			"A state folder holds several roots side by side. The first folder indexed keeps plain repo-relative paths " +
			"(code:file:main.go); every other root is named after its folder (or --name) and its paths are NAME//path " +
			"(code:file:lib//util.go). A PATH inside a root refreshes that part only; nothing outside it is removed. " +
			"--remove takes a root out of the graph.",
		Example: "  cos index\n  cos index ../service ../library\n  cos index src/parser        # refresh one folder of the root\n" +
			"  cos index --remove library\n  cos index --json .",
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if fileTO <= 0 {
				return usageError("--file-timeout %v: give a positive duration such as 30s", fileTO)
			}
			if name != "" && len(args) > 1 {
				return usageError("--name names one new root; give one PATH with it")
			}
			if cmd.Flags().Changed("remove") && remove == "" {
				return usageError("--remove names a root: its name, or primary")
			}
			if remove != "" && (len(args) > 0 || name != "") {
				return usageError("--remove takes no PATH and no --name; remove a root on its own")
			}
			a.writesSoon = true
			ix, st, err := a.openIndexer(ctx, f, a.stderrLogger(slog.LevelWarn), nil)
			if err != nil {
				return failure(err)
			}
			defer func() { _ = st.Close(context.Background()) }()
			if remove != "" {
				out, err := ix.RemoveRoot(ctx, remove)
				if err != nil {
					return failure(err)
				}
				if asJSON {
					return json.NewEncoder(a.io.Out).Encode(map[string]any{"removed": out})
				}
				_, err = fmt.Fprintf(a.io.Out, "removed root %s (%s): %d files\n", rootLabel(out.Name), out.Root, out.FilesRemoved)
				return err
			}
			if len(args) == 0 {
				args = []string{"."}
			}
			for i, root := range args {
				last := i == len(args)-1
				// At most one snapshot, after the last folder: each
				// snapshot writes the whole state; the default (0) takes
				// it when the replay it saves is worth its size.
				snap := int64(-1)
				if last {
					snap = 0
				}
				if err := a.indexOne(ctx, ix, st, root, indexing.RunOptions{Precise: pf.options(), FileTimeout: fileTO, Force: force,
					SnapshotMinBytes: snap, Name: name}, noBar, asJSON); err != nil {
					return err
				}
				if last && watch && !asJSON {
					return a.watchIndex(ctx, ix)
				}
			}
			return nil
		},
	}
	f.add(cmd, "off")
	cmd.Flags().StringVar(&name, "name", "", "name of a new root (default: its folder's name); the first root of a state folder has none")
	cmd.Flags().StringVar(&remove, "remove", "", "take the root with this name (primary: the first root; or its folder) out of the graph, and nothing else")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the whole report as JSON instead of the summary line")
	cmd.Flags().BoolVar(&noBar, "no-progress", false, "no progress bar, even on a terminal")
	cmd.Flags().BoolVar(&force, "force", false, "extract every file again, changed or not (brings back nodes deleted by hand)")
	cmd.Flags().DurationVar(&fileTO, "file-timeout", extract.DefaultFileTimeout, "time limit of one file's extraction; "+
		"a file past it is skipped (reason timeout) and tried again on the next index")
	cmd.Flags().BoolVar(&watch, "watch", false, "after indexing, keep the graph current until interrupted: changed files are "+
		"re-indexed within a second of the last write, one summary line per run on stderr")
	pf.add(cmd)
	return cmd
}

// indexOne indexes root with o (a progress bar on a terminal unless
// noBar) and prints its summary line, or the report as JSON.
func (a *app) indexOne(ctx context.Context, ix *indexing.Indexer, st *state.State, root string, o indexing.RunOptions, noBar, asJSON bool) error {
	var bar *progressbar.ProgressBar
	if !noBar && isTerminal(a.io.Err) {
		bar = newIndexBar(a.io.Err)
		o.Progress = func(done, total int) {
			bar.ChangeMax(max(total, 1))
			_ = bar.Set(done)
		}
		// The bar's text says the stage: while Go packages are checked,
		// "type-checked 40 of 235 Go packages; …" (the files bar stands
		// still then).
		o.Report = func(p indexing.Progress) { bar.Describe(p.Message()) }
	}
	rep, err := ix.IndexWith(ctx, root, o)
	if bar != nil {
		_ = bar.Finish()
		_, _ = fmt.Fprintln(a.io.Err)
	}
	if err != nil {
		return failure(err)
	}
	// The run has brought the projections up to its end and snapshotted
	// them (so the next command starts warm); catch up with anything
	// appended since.
	projStart := time.Now()
	if _, err := st.Tailer().CatchUp(ctx); err != nil {
		return failure(err)
	}
	projected := rep.SnapshotSeconds + time.Since(projStart).Seconds()
	var counts projections.GraphCounts
	st.View(func(v state.View) { counts = v.Graph.Counts() })
	if asJSON {
		enc := json.NewEncoder(a.io.Out)
		enc.SetEscapeHTML(false)
		return enc.Encode(map[string]any{"report": rep, "projected_seconds": projected, "graph": counts})
	}
	_, err = fmt.Fprintln(a.io.Out, summaryLine(rep, projected, &counts))
	return err
}

// rootLabel names a root for a person: its name, or "primary".
func rootLabel(name string) string {
	if name == "" {
		return "primary"
	}
	return name
}

// watchIndex is cos index --watch after the first run: it watches until
// ctx ends (SIGINT, SIGTERM), one summary line per run on stderr.
func (a *app) watchIndex(ctx context.Context, ix *indexing.Indexer) error {
	_, _ = fmt.Fprintln(a.io.Err, "watching for changes; interrupt to stop")
	err := ix.Watch(ctx, indexing.WatchOptions{OnRun: func(r indexing.WatchRun) {
		what := fmt.Sprintf("%d changed paths", r.Paths)
		if r.Full {
			what = "whole tree"
		}
		switch {
		case r.Err != nil && ctx.Err() != nil:
			_, _ = fmt.Fprintf(a.io.Err, "watch: %s: interrupted; what it committed stays, the next cos index picks up the rest\n", what)
			return
		case r.Err != nil:
			_, _ = fmt.Fprintf(a.io.Err, "watch: %s: failed, tried again on the next change: %v\n", what, r.Err)
			return
		}
		_, _ = fmt.Fprintf(a.io.Err, "watch: %s: %s\n", what, summaryLine(r.Report, 0, nil))
	}})
	if err != nil {
		return failure(err)
	}
	return nil
}

// SCIPToolsEnv is the environment variable --scip-tools defaults to.
const SCIPToolsEnv = "COS_SCIP_TOOLS"

// preciseFlags are cos index's SCIP flags.
type preciseFlags struct {
	precise bool
	tools   string
	files   []string
	timeout time.Duration
}

func (p *preciseFlags) add(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.BoolVar(&p.precise, "precise", false, "run the SCIP indexers (scip-python, scip-typescript; never installed by cos) and take "+
		"Python, TypeScript and JavaScript calls and references from them for the files they index")
	fl.StringVar(&p.tools, "scip-tools", os.Getenv(SCIPToolsEnv), "folder the SCIP indexers are looked for in before PATH "+
		"(also its node_modules/.bin: the folder of npm install --prefix DIR); default $"+SCIPToolsEnv)
	fl.StringArrayVar(&p.files, "scip", nil, "merge this SCIP index file (from any SCIP indexer); repeatable")
	fl.DurationVar(&p.timeout, "precise-timeout", 10*time.Minute, "time limit of each SCIP indexer run (killed after it)")
}

func (p *preciseFlags) options() indexing.PreciseOptions {
	return indexing.PreciseOptions{Run: p.precise, Tools: p.tools, Indexes: p.files, Timeout: p.timeout}
}

// newIndexBar is the terminal progress bar: files done of files seen so
// far, files/s and the estimated time left.
func newIndexBar(w io.Writer) *progressbar.ProgressBar {
	return progressbar.NewOptions(1,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription("indexing"),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString("files"),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionThrottle(progressThrottle),
		progressbar.OptionSetWidth(30),
	)
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// summaryLine renders a report as the one line `cos index` prints:
//
//	indexed /src/x: 812 files seen, 812 changed, 0 removed, 0 failed, 3 skipped; graph 9120 nodes, 15230 edges;
//	812 events (4.1 MB) in 3.20 s (+0.90 s projecting); slowest: a.go 41 ms, b.go 30 ms, c.go 22 ms
//
// counts are the graph's after the run (what cos_health says); nil
// (cos index --watch) says what the run wrote instead: node and edge
// records, counted per extracted file (a node several files declare, as a
// package, counts once per file).
func summaryLine(r indexing.Report, projected float64, counts *projections.GraphCounts) string {
	var b strings.Builder
	where := r.Root
	switch {
	case r.Under != "":
		where = fmt.Sprintf("%s (refreshed %s of root %s)", r.Root, r.Under, rootLabel(r.RootName))
	case r.RootName != "" && r.RootAdded:
		where = fmt.Sprintf("%s (new root %s: its paths are %s//…)", r.Root, r.RootName, r.RootName)
	case r.RootName != "":
		where = fmt.Sprintf("%s (root %s)", r.Root, r.RootName)
	}
	fmt.Fprintf(&b, "indexed %s: %d files seen, %d changed, %d removed, %d failed, %d skipped",
		where, r.FilesSeen, r.FilesChanged+r.FilesReextracted, r.FilesRemoved, r.FilesFailed, r.FilesSkipped)
	if s := skippedSummary(r); s != "" {
		fmt.Fprintf(&b, " (%s)", s)
	}
	if r.FilesWithParseErrors > 0 {
		fmt.Fprintf(&b, ", %d with parse errors", r.FilesWithParseErrors)
	}
	if g := r.Git; g != nil {
		switch {
		case g.Kept == 0:
			fmt.Fprintf(&b, " (git keeps no file here: the ignore rules of the work tree %s exclude this whole folder)", g.Top)
		case g.Note != "":
			fmt.Fprintf(&b, " (the files git keeps, read without git: %s)", g.Note)
		}
	}
	if r.FilesSplit > 0 {
		fmt.Fprintf(&b, ", %d appended in parts (over the event size limit)", r.FilesSplit)
	}
	if r.FilesTrimmed > 0 {
		fmt.Fprintf(&b, ", %d trimmed to the event limit", r.FilesTrimmed)
	}
	if r.GoPackagesChecked > 0 || len(r.GoFallback) > 0 {
		fmt.Fprintf(&b, "; Go: %d files type-checked (%d packages)", r.GoFilesTyped, r.GoPackagesChecked)
		if n := len(r.GoFallback); n > 0 {
			total, parts := 0, make([]string, 0, n)
			for _, reason := range sortedReasons(r.GoFallback) {
				total += r.GoFallback[reason]
				parts = append(parts, fmt.Sprintf("%d %s", r.GoFallback[reason], strings.ReplaceAll(reason, "_", " ")))
			}
			fmt.Fprintf(&b, ", %d by syntax (%s)", total, strings.Join(parts, ", "))
		}
		if r.GoFallback[graph.FallbackGoUnavailable] > 0 {
			b.WriteString("; go not found on PATH: Go files read by syntax only")
		}
	}
	if r.Precise != nil {
		if s := preciseSummary(*r.Precise); s != "" {
			b.WriteString("; ")
			b.WriteString(s)
		}
	}
	if counts != nil {
		fmt.Fprintf(&b, "; graph %d nodes, %d edges", counts.Nodes, counts.Edges)
	} else {
		fmt.Fprintf(&b, "; wrote %d node and %d edge records", r.Nodes, r.Edges)
	}
	fmt.Fprintf(&b, "; %d events (%s) in %.2f s (+%.2f s projecting)",
		r.Events, humanBytes(r.Bytes), r.Seconds, projected)
	if r.SnapshotError != "" {
		fmt.Fprintf(&b, "; snapshot failed (the index is saved; the next start replays it from the log): %s", r.SnapshotError)
	}
	if n := min(len(r.Slowest), summarySlowest); n > 0 {
		b.WriteString("; slowest:")
		for i, t := range r.Slowest[:n] {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, " %s %.0f ms", path.Base(t.Path), t.MS)
		}
	}
	return b.String()
}

// summarySkipped is how many skipped files the summary line names.
const summarySkipped = 3

// skippedSummary names the first skipped files with their reason, the
// size limit beside too_large:
//
//	big.min.js: too large, over 2.0 MiB; logo.png: binary; and 4 more (see --json)
func skippedSummary(r indexing.Report) string {
	var parts []string
	for _, n := range r.Skipped[:min(len(r.Skipped), summarySkipped)] {
		why := strings.ReplaceAll(n.Reason, "_", " ")
		if n.Reason == extract.SkipTooLarge && r.MaxFileSize > 0 {
			why += ", over " + humanBinary(r.MaxFileSize)
		}
		parts = append(parts, n.Path+": "+why)
	}
	if more := r.FilesSkipped - len(parts); more > 0 && len(parts) > 0 {
		parts = append(parts, fmt.Sprintf("and %d more (see --json)", more))
	}
	return strings.Join(parts, "; ")
}

// humanBinary renders a byte count in KiB or MiB ("2.0 MiB").
func humanBinary(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// preciseSummary is the precise part of the summary line:
//
//	precise: scip-python 0.6.6 33 files (12.1 s), scip-typescript not installed (2 files not covered (inferred), 5 sites the index did not cover keep inferred edges)
//
// or, for an index without an index that replaced precise files,
//
//	2 precise files re-extracted without an index (inferred until cos index --precise)
func preciseSummary(p indexing.PreciseReport) string {
	var parts []string
	for _, ix := range p.Indexers {
		name := ix.Indexer
		if name == "" {
			name = ix.Name
		}
		switch ix.Status {
		case indexing.IndexerOK:
			s := fmt.Sprintf("%s %d files", name, ix.FilesPrecise)
			if ix.Seconds > 0 {
				s += fmt.Sprintf(" (%.1f s)", ix.Seconds)
			}
			if ix.Message != "" {
				s += " (" + ix.Message + ")"
			}
			parts = append(parts, s)
		case indexing.IndexerMissing:
			parts = append(parts, name+" not installed")
		default:
			parts = append(parts, name+" "+ix.Status+" (see --json)")
		}
	}
	var notes []string
	if p.FilesUnchanged > 0 {
		notes = append(notes, fmt.Sprintf("%d unchanged", p.FilesUnchanged))
	}
	if p.FilesNotCovered > 0 {
		notes = append(notes, fmt.Sprintf("%d files not covered (inferred)", p.FilesNotCovered))
	}
	if p.InferredSites > 0 {
		notes = append(notes, fmt.Sprintf("%d sites the index did not cover keep inferred edges", p.InferredSites))
	}
	if p.FilesDemoted > 0 {
		notes = append(notes, fmt.Sprintf("%d precise files re-extracted without an index (inferred until cos index --precise)", p.FilesDemoted))
	}
	if len(parts) == 0 {
		return strings.Join(notes, ", ")
	}
	s := "precise: " + strings.Join(parts, ", ")
	if len(notes) > 0 {
		s += " (" + strings.Join(notes, ", ") + ")"
	}
	return s
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// sortedReasons returns the keys of a fallback count map in order.
func sortedReasons(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
