package indexing

import (
	"fmt"
	"sync"
)

// Progress is how far an index run has come, handed to RunOptions.Report.
// The counts only grow during a run.
type Progress struct {
	// Stage is what the run is doing: "walk" (listing and hashing the
	// files), "extract" (extracting the changed ones), "append" (appending
	// them to the log) or "done".
	Stage string
	// FilesSeen is the number of files the walk accepted and FilesChanged
	// how many of them changed (both 0 until the files are hashed).
	FilesSeen, FilesChanged int
	// FilesExtracted counts the changed files extracted so far.
	FilesExtracted int
	// PackagesChecked of PackagesTotal are the Go packages type-checked so
	// far, of those the run's passes have planned (the changed Go files'
	// extraction waits on them); both 0 when no Go package is checked.
	PackagesChecked, PackagesTotal int
	// FilesAppended counts the files whose events are committed to the log
	// (dependents extracted again included); Events those events.
	FilesAppended, Events int
}

// Message says p in a line for a person: "extracted 120 of 415 changed
// files (415 seen)".
func (p Progress) Message() string {
	switch p.Stage {
	case "walk":
		return "listing and hashing the files"
	case "extract":
		if p.PackagesTotal > 0 && p.PackagesChecked < p.PackagesTotal {
			return fmt.Sprintf("type-checked %d of %d Go packages; extracted %d of %d changed files (%d seen)",
				p.PackagesChecked, p.PackagesTotal, p.FilesExtracted, p.FilesChanged, p.FilesSeen)
		}
		return fmt.Sprintf("extracted %d of %d changed files (%d seen)", p.FilesExtracted, p.FilesChanged, p.FilesSeen)
	case "append":
		return fmt.Sprintf("appended %d files to the log (%d events) of %d changed", p.FilesAppended, p.Events, p.FilesChanged)
	default:
		return fmt.Sprintf("indexed: %d files seen, %d changed, %d appended (%d events)", p.FilesSeen, p.FilesChanged, p.FilesAppended, p.Events)
	}
}

// progressState gathers a run's progress from the extraction's callbacks
// and the appends, and hands each change to report.
type progressState struct {
	report func(Progress)
	// mu guards p and orders the calls of report.
	mu sync.Mutex
	p  Progress
	// pkgBase is the packages of the type-check passes before the current.
	pkgBase int
}

func newProgressState(report func(Progress)) *progressState {
	if report == nil {
		return nil
	}
	ps := &progressState{report: report, p: Progress{Stage: "walk"}}
	report(ps.p)
	return ps
}

// update changes the progress under the lock and reports it; a nil
// receiver does nothing.
func (ps *progressState) update(f func(p *Progress)) {
	if ps == nil {
		return
	}
	ps.mu.Lock()
	defer ps.mu.Unlock()
	f(&ps.p)
	ps.report(ps.p)
}

// walked is extract.Options.Progress: its first call, once the files are
// hashed, says how many were seen and how many did not change.
func (ps *progressState) walked(done, total int) {
	ps.update(func(p *Progress) {
		if p.Stage == "walk" {
			p.Stage, p.FilesSeen, p.FilesChanged = "extract", total, total-done
		}
	})
}

// extracted is extract.Options.Extracted.
func (ps *progressState) extracted(done, total int) {
	ps.update(func(p *Progress) {
		p.FilesExtracted, p.FilesChanged = done, max(p.FilesChanged, total)
	})
}

// typeChecked is extract.Options.TypeChecked. Passes run one after the
// other, so a pass's first package starts from the previous passes' total:
// the counts only grow.
func (ps *progressState) typeChecked(done, total int) {
	ps.update(func(p *Progress) {
		if done == 1 {
			ps.pkgBase = p.PackagesTotal
		}
		p.PackagesChecked, p.PackagesTotal = ps.pkgBase+done, ps.pkgBase+total
	})
}

// appended counts one committed batch.
func (ps *progressState) appended(files, events int) {
	ps.update(func(p *Progress) {
		p.Stage = "append"
		p.FilesAppended += files
		p.Events += events
	})
}
