package tasks

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Limits of a board page.
const (
	MinLimit = 1
	MaxLimit = 200
	// DefaultLimit is what the tool passes when the caller gives no limit.
	DefaultLimit = 50
)

// Filter selects tasks of the board; empty fields match everything.
type Filter struct {
	Status string `json:"status,omitempty"`
	// Statuses are more statuses a task may have (with Status: any of
	// them).
	Statuses []string `json:"statuses,omitempty"`
	Assignee string   `json:"assignee,omitempty"`
	// Label is a label the task has; one ending in "*" is a prefix
	// ("area/*" matches area/ui and area/api).
	Label string `json:"label,omitempty"`
	// Query is words that must all occur, case-insensitively, in the
	// task's id, title or description.
	Query string `json:"query,omitempty"`
}

// MaxQueryLen bounds Filter.Query, in characters.
const MaxQueryLen = 200

// Validate checks the statuses against the legal statuses and the query's
// length.
func (f Filter) Validate() error {
	for _, s := range f.statuses() {
		if !slices.Contains(Statuses, s) {
			_, hint, _ := parseEnum(mustJSON(s), Statuses, statusSynonyms)
			return asError([]*FieldError{{Field: "status", Got: clip(mustJSON(s)), Legal: quoteAll(Statuses), Hint: hint, Example: `{"status": "todo", "limit": 50}`}})
		}
	}
	if n := utf8.RuneCountInString(f.Query); n > MaxQueryLen {
		return asError([]*FieldError{{Field: "query", Got: fmt.Sprintf("a string of %d characters", n), Legal: fmt.Sprintf("at most %d characters", MaxQueryLen), Example: `{"query": "login redirect"}`}})
	}
	return nil
}

// statuses is Status and Statuses together (nil: any status).
func (f Filter) statuses() []string {
	if f.Status == "" {
		return f.Statuses
	}
	return append([]string{f.Status}, f.Statuses...)
}

func (f Filter) match(status, assignee string, labels []string) bool {
	st := f.statuses()
	return (len(st) == 0 || slices.Contains(st, status)) &&
		(f.Assignee == "" || f.Assignee == assignee) &&
		f.matchLabel(labels)
}

func (f Filter) matchLabel(labels []string) bool {
	if f.Label == "" {
		return true
	}
	prefix, ok := strings.CutSuffix(f.Label, "*")
	if !ok {
		return slices.Contains(labels, f.Label)
	}
	return slices.ContainsFunc(labels, func(l string) bool { return strings.HasPrefix(l, prefix) })
}

// matchTask reports whether t is in the filtered set.
func (f Filter) matchTask(t *Task) bool {
	return f.match(t.Status, t.Assignee, t.Labels) && f.matchText(t)
}

// Match reports whether t is in the filtered set (f valid).
func (f Filter) Match(t Task) bool { return f.matchTask(&t) }

func (f Filter) matchText(t *Task) bool {
	words := strings.Fields(strings.ToLower(f.Query))
	if len(words) == 0 {
		return true
	}
	text := strings.ToLower(t.ID + "\n" + t.Title + "\n" + t.Description)
	for _, w := range words {
		if !strings.Contains(text, w) {
			return false
		}
	}
	return true
}

// matchesAt reports whether e was in the filtered set at log seq s. The
// history keeps no title or description: with a Query it answers whether
// e matched the rest of the filter, which may count a task that did not
// match (the cursor is then stale where it need not be; never the other
// way).
func (f Filter) matchesAt(e *entry, s uint64) bool {
	if e.Task.CreatedSeq > s {
		return false
	}
	var at *filterState
	for i := range e.Filters {
		if e.Filters[i].Seq > s {
			break
		}
		at = &e.Filters[i]
	}
	return at != nil && f.match(at.Status, at.Assignee, at.Labels)
}

// Page is one page of the board.
type Page struct {
	// Tasks are in id order.
	Tasks []Task `json:"tasks"`
	// Total is the number of tasks matching the filter.
	Total int `json:"total"`
	// LogSeq is the log position S the whole walk is consistent with: the
	// logSeq of its first page.
	LogSeq uint64 `json:"log_seq"`
}

// List returns one page of the board in id order and the cursor of the next
// page ("" on the last page). logSeq is the log position the board
// currently reflects (the tailer's); limit must be MinLimit–MaxLimit (an
// out-of-range limit is an *ArgumentError naming the range, never clamped).
//
// The first page (cursor "") binds the walk to S = logSeq. A later page is
// served only while the walk is still a faithful listing of the board as of
// S; the cursor is stale (*StaleCursorError, errors.Is ErrStaleCursor) when
//
//   - it was issued for another filter, or
//   - S > logSeq (the cursor is from a later position than this view), or
//   - some task changed after S (its last event has seq > S) and matches
//     the filter now or matched it at S: a task entered or left the set, or
//     the content of a listed task changed, before or after the cursor's
//     position.
//
// Changes to tasks outside the filtered set, then and now, do not
// invalidate it. A non-stale walk thus returns every task of the filtered
// set at S exactly once, as it was at S. A malformed cursor is a
// *CursorError (errors.Is ErrCursor).
func (b *Board) List(f Filter, cursorText string, limit int, logSeq uint64) (Page, string, error) {
	if limit < MinLimit || limit > MaxLimit {
		return Page{}, "", asError([]*FieldError{{Field: "limit", Got: fmt.Sprint(limit), Legal: fmt.Sprintf("an integer from %d to %d (default %d)", MinLimit, MaxLimit, DefaultLimit), Example: `{"status": "todo", "limit": 50}`}})
	}
	if err := f.Validate(); err != nil {
		return Page{}, "", err
	}
	c := cursor{seq: logSeq, filter: f.digest()}
	all := b.sorted()
	if cursorText != "" {
		var err error
		if c, err = decodeCursor(cursorText); err != nil {
			return Page{}, "", err
		}
		if c.filter != f.digest() {
			return Page{}, "", &StaleCursorError{Reason: "the cursor belongs to another filter"}
		}
		if c.seq > logSeq {
			return Page{}, "", &StaleCursorError{Reason: fmt.Sprintf("the cursor is from log seq %d, this view is at %d", c.seq, logSeq)}
		}
		// When no task event came after the cursor, nothing can be stale.
		for i := 0; b.maxSeq > c.seq && i < len(all); i++ {
			e, t := all[i], &all[i].Task
			if t.Seq > c.seq && (f.matchTask(t) || f.matchesAt(e, c.seq)) {
				return Page{}, "", &StaleCursorError{Reason: fmt.Sprintf("%s changed at seq %d", t.ID, t.Seq), TaskID: t.ID}
			}
		}
	}
	page := Page{Tasks: []Task{}, LogSeq: c.seq}
	next := ""
	var lastNum uint64
	for _, e := range all {
		t := &e.Task
		if !f.matchTask(t) {
			continue
		}
		page.Total++
		if cursorText != "" && e.num <= c.after {
			continue
		}
		if len(page.Tasks) == limit {
			if next == "" {
				next = cursor{seq: c.seq, filter: c.filter, after: lastNum}.encode()
			}
			continue
		}
		page.Tasks = append(page.Tasks, t.clone())
		lastNum = e.num
	}
	return page, next, nil
}
