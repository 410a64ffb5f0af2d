package tools

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/indexing"
	"github.com/cos-dev/cos/internal/pagecursor"
	"github.com/cos-dev/cos/projections/evidence"
)

// The tools of the Hub's web page alone (Tool.HubOnly): an agent has no
// use for a list of every evidence session or a file excerpt it can read
// itself, and each would cost every MCP tools/list its schema.

// Bounds of cos_evidence_sessions pages, in sessions.
const (
	sessionsLimitDefault = 50
	sessionsLimitMax     = 500
)

// Bounds of cos_graph_source: lines per answer, bytes per line (a longer
// line is cut, and truncated says so) and bytes read from the file before
// the node's lines (a file larger than that is read only that far).
const (
	sourceLinesMax   = 400
	sourceLineBytes  = 2000
	sourceReadBudget = 32 << 20
)

// sessionRow is one session of cos_evidence_sessions: its bundle's shape,
// not its records (cos_evidence_bundle returns them).
type sessionRow struct {
	SessionID string `json:"session_id"`
	// FirstSeq is the seq of the session's first record (0 when none
	// applied); rows come newest first by it.
	FirstSeq         uint64         `json:"first_seq"`
	Count            int            `json:"count"`
	Roles            map[string]int `json:"roles"`
	Backtracks       int            `json:"backtracks"`
	Discoveries      int            `json:"discoveries"`
	DegradedFormulas int            `json:"degraded_formulas"`
	Revision         uint64         `json:"revision"`
	Hash             string         `json:"hash"`
	CreatedAt        time.Time      `json:"created_at"`
	UpdatedAt        time.Time      `json:"updated_at"`
}

// sessionsAnswer is what cos_evidence_sessions answers.
type sessionsAnswer struct {
	Sessions []sessionRow `json:"sessions"`
	// Total is the number of sessions in the state read.
	Total int `json:"total"`
	// NextCursor continues the listing ("" on the last page).
	NextCursor string `json:"next_cursor"`
}

// sourceAnswer is what cos_graph_source answers: the node's lines of its
// file as the disk holds them now.
type sourceAnswer struct {
	UID  string `json:"uid"`
	Path string `json:"path"`
	// StartLine and EndLine are 1-based and inclusive: the lines shown.
	StartLine int      `json:"start_line"`
	EndLine   int      `json:"end_line"`
	Lines     []string `json:"lines"`
	// Truncated says the node spans more lines than were shown, or a line
	// was cut at 2,000 bytes.
	Truncated bool `json:"truncated"`
}

func hubCatalogue() []*Tool {
	return []*Tool{
		{
			Name:        "cos_evidence_sessions",
			Title:       "Evidence sessions",
			Description: "Sessions that recorded evidence, newest first, with the count of records in each slot. Paged.",
			Data:        fieldsOf(sessionsAnswer{}),
			Module:      "evidence", Layer: envelope.LayerAudit, ReadOnly: true, Idempotent: true, HubOnly: true,
			Example: `{"limit": 50}`,
			Params: []Param{
				{Name: "cursor", Type: TString, MaxLen: pagecursor.MaxLen, Minted: true},
				{Name: "limit", Type: TInt, Min: f64(1), Max: f64(sessionsLimitMax), Default: sessionsLimitDefault},
			},
			Handler: evidenceSessionsTool,
		},
		{
			Name:        "cos_graph_source",
			Title:       "Node source",
			Description: "A node's source lines (at most 400) from its file on disk.",
			Data:        fieldsOf(sourceAnswer{}),
			Module:      "graph", Layer: envelope.LayerGraph, ReadOnly: true, Idempotent: true, HubOnly: true,
			Example: `{"uid": "code:function:server.go::Server.ListenAndServe"}`,
			Params: []Param{
				{Name: "uid", Type: TString, Required: true, NonEmpty: true, MaxLen: 1024},
				{Name: "max_lines", Type: TInt, Min: f64(1), Max: f64(sourceLinesMax), Default: sourceLinesMax},
			},
			Handler: graphSourceTool,
		},
		metricListTool(),
		evidenceTaskTool(),
		graphOverviewTool(),
	}
}

// evidenceSessionsTool lists the sessions of the evidence projection,
// newest first by the seq of their first record. A cursor holds the first
// seq the last page ended at, so sessions created while a caller pages
// neither shift nor repeat the rest.
func evidenceSessionsTool(_ context.Context, c *Call) (any, envelope.ToolMeta, error) {
	var tm envelope.ToolMeta
	limit := c.Args.Int("limit", sessionsLimitDefault)
	query := pagecursor.Digest("cos_evidence_sessions")
	after, err := cursorAfter(c, query) // 0: from the newest
	if err != nil {
		return nil, tm, err
	}
	ids := c.V.Bundles.Sessions()
	rows := make([]sessionRow, 0, len(ids))
	for _, id := range ids {
		b, err := c.V.Bundles.Get(id)
		if err != nil {
			return nil, tm, err
		}
		rows = append(rows, sessionRowOf(b))
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].FirstSeq != rows[j].FirstSeq {
			return rows[i].FirstSeq > rows[j].FirstSeq
		}
		return rows[i].SessionID < rows[j].SessionID
	})
	from := 0
	if after > 0 {
		from = sort.Search(len(rows), func(i int) bool { return rows[i].FirstSeq < after })
	}
	page := rows[from:]
	next := ""
	if len(page) > limit {
		// A session with no applied record (first seq 0) has no place in
		// the order: those few end the listing on one page.
		if page[limit-1].FirstSeq > 0 {
			page = page[:limit]
			next = pagecursor.Cursor{Seq: c.V.Pos.Seq, Query: query, After: page[limit-1].FirstSeq}.Encode()
		}
	}
	return sessionsAnswer{Sessions: page, Total: len(rows), NextCursor: next}, tm, nil
}

func sessionRowOf(b evidence.Bundle) sessionRow {
	r := sessionRow{SessionID: b.SessionID, Count: b.Count(), Roles: map[string]int{}, Backtracks: len(b.Backtracks),
		Discoveries: len(b.Discoveries), DegradedFormulas: len(b.DegradedFormulas), Revision: b.Revision, Hash: b.Hash,
		CreatedAt: b.CreatedAt, UpdatedAt: b.UpdatedAt}
	first := func(es []evidence.Entry) {
		for _, e := range es {
			if r.FirstSeq == 0 || e.Seq < r.FirstSeq {
				r.FirstSeq = e.Seq
			}
		}
	}
	for role, es := range b.Roles {
		r.Roles[role] = len(es)
		first(es)
	}
	first(b.Backtracks)
	first(b.Discoveries)
	first(b.DegradedFormulas)
	return r
}

// graphSourceTool answers cos_graph_source: the lines of the node's file
// from its line to its end line (its first max_lines; the whole file's
// first max_lines for a file node or a node with no line). The file is
// read under the folder the graph was indexed from and must stay inside
// it (a path from the graph that leads out, through .. or a symlink, is
// E_PATH). The read is bounded: max_lines lines of at most 2,000 bytes,
// within the first 32 MiB of the file.
func graphSourceTool(ctx context.Context, c *Call) (any, envelope.ToolMeta, error) {
	res, err := c.Resolve(ctx, c.Args.Str("uid"), false)
	if err != nil {
		return nil, envelope.ToolMeta{}, err
	}
	tm := resolvedMeta(res)
	n := res.Node
	if n.Path == "" {
		return nil, tm, envelope.Errorf(envelope.CodeNotFound, "%s has no source file (a %s)", n.UID, n.Kind).
			WithDetails(map[string]any{"uid": n.UID, "kind": n.Kind})
	}
	root := c.changesRoot()
	if root == "" {
		return nil, tm, envelope.Errorf(envelope.CodeUnavailable, "the folder the graph was indexed from is not known; run cos index").
			WithDetails(map[string]any{"uid": n.UID, "path": n.Path})
	}
	file, err := sourceFile(root, n.Path)
	if err != nil {
		return nil, tm, err
	}
	maxLines := c.Args.Int("max_lines", sourceLinesMax)
	start, end := max(n.Line, 1), n.EndLine
	if n.Line == 0 || end < start {
		// No span known (a file, or a node with a line only): the
		// max_lines lines from its start.
		end = start + maxLines - 1
	}
	ans := sourceAnswer{UID: n.UID, Path: n.Path, StartLine: start, Lines: []string{}}
	if end-start+1 > maxLines {
		end, ans.Truncated = start+maxLines-1, true
	}
	lines, cut, err := readLines(file, start, end)
	if err != nil {
		return nil, tm, envelope.Wrap(err, envelope.CodeNotFound, "%s: the file cannot be read (%v); it may have moved since the last index", n.Path, errors.Unwrap(err)).
			WithDetails(map[string]any{"uid": n.UID, "path": n.Path})
	}
	ans.Lines = lines
	c.NameFiles(ans.Path)
	ans.Truncated = ans.Truncated || cut
	ans.EndLine = start + len(lines) - 1
	if len(lines) == 0 {
		ans.EndLine = 0
	}
	return ans, tm, nil
}

// sourceFile returns the file p (repo-relative, slash-separated) under
// root, refusing one that leads outside root.
func sourceFile(root, p string) (string, error) {
	refuse := func() error {
		return envelope.Errorf(envelope.CodePath, "%s lies outside the indexed folder; its source is not shown", p).
			WithDetails(map[string]any{"path": p})
	}
	if filepath.IsAbs(filepath.FromSlash(p)) {
		return "", refuse()
	}
	base, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", envelope.Wrap(err, envelope.CodeUnavailable, "the indexed folder %s cannot be read", root)
	}
	target := filepath.Join(base, filepath.FromSlash(indexing.OnDisk(root, p)))
	real, err := filepath.EvalSymlinks(target)
	if err != nil {
		return "", envelope.Wrap(err, envelope.CodeNotFound, "%s is not on disk; it may have moved since the last index", p).
			WithDetails(map[string]any{"path": p})
	}
	if rel, err := filepath.Rel(base, real); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", refuse()
	}
	return real, nil
}

// readLines returns lines start..end (1-based, inclusive) of the file,
// each cut at sourceLineBytes (cut says one was), reading no more than
// sourceReadBudget bytes.
func readLines(file string, start, end int) (lines []string, cut bool, err error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, false, fmt.Errorf("open source: %w", err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && !st.Mode().IsRegular() {
		return nil, false, fmt.Errorf("open source: %w", errors.New("not a regular file"))
	}
	br := bufio.NewReaderSize(io.LimitReader(f, sourceReadBudget), 64<<10)
	for n := 1; n <= end; n++ {
		line, long, err := readLine(br)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return lines, cut, nil
			}
			return nil, false, fmt.Errorf("read source: %w", err)
		}
		if n >= start {
			cut = cut || long
			lines = append(lines, strings.ToValidUTF8(line, "\uFFFD"))
		}
	}
	return lines, cut, nil
}

// readLine reads one line without its end of line, keeping at most
// sourceLineBytes of it (long says it was longer); io.EOF when nothing is
// left.
func readLine(br *bufio.Reader) (string, bool, error) {
	var b []byte
	long := false
	for {
		frag, isPrefix, err := br.ReadLine()
		if err != nil {
			if errors.Is(err, io.EOF) && (len(b) > 0 || long) {
				return string(b), long, nil
			}
			return "", false, err
		}
		if room := sourceLineBytes - len(b); room > 0 {
			if len(frag) > room {
				frag, long = frag[:room], true
				for len(frag) > 0 && !utf8.RuneStart(frag[len(frag)-1]) {
					frag = frag[:len(frag)-1]
				}
			}
			b = append(b, frag...)
		} else if len(frag) > 0 {
			long = true
		}
		if !isPrefix {
			return string(b), long, nil
		}
	}
}

// cursorAfter is the seq the call's cursor resumes after (0 without one:
// from the newest) for a listing whose cursors carry query; a cursor of
// another listing is STALE_CURSOR.
func cursorAfter(c *Call, query [8]byte) (uint64, error) {
	cs := c.Args.Str("cursor")
	if cs == "" {
		return 0, nil
	}
	cur, err := decodeCursor(cs)
	if err != nil {
		return 0, err
	}
	if cur.Query != query {
		return 0, staleCursor("it belongs to another listing")
	}
	return cur.After, nil
}
