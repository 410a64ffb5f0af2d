package tools

import (
	"slices"
	"strings"

	"github.com/cos-dev/cos/query"
)

// This file is the compact form of a paged graph listing (format
// "compact"): the page's rows grouped by file, each row an array of the
// chosen fields, a field whose value is the same on every row said once,
// and a uid's prefix shared by a file's rows said once, so a page holds
// several times the rows of the normal form within the same budget.

// Values of the format argument.
const (
	formatRows    = "rows"
	formatCompact = "compact"
)

// compactPage is data.compact: Same holds the chosen fields whose value is
// the same on every row (said once), Columns the others in the order of
// each row's cells, Files the rows grouped by file (sorted by path, rows
// in page order).
type compactPage struct {
	Columns []string       `json:"columns"`
	Same    map[string]any `json:"same"`
	Files   []compactFile  `json:"files"`
}

// compactFile is the rows of one file. UIDPrefix, when set, is the prefix
// its rows' uid cells (source or uid) leave out: the uid is UIDPrefix +
// the cell.
type compactFile struct {
	File      string  `json:"file"`
	UIDPrefix string  `json:"uid_prefix,omitempty"`
	Rows      [][]any `json:"rows"`
}

// compactCols is how one tool's rows become compact: the file of a row,
// and the value of a field (one of fields).
type compactCols[T any] struct {
	fields   []string
	defaults []string
	// uid is the field holding a uid whose shared prefix a file says once.
	uid  string
	file func(T) string
	cell func(T, string) any
}

// compactParams are the format and fields arguments of a tool whose rows
// have these fields.
func compactParams(fields []string) []Param {
	return []Param{
		{Name: "format", Type: TString, Enum: []string{formatRows, formatCompact}, Default: formatRows,
			Description: "compact: rows by file as arrays of fields, constant fields once; holds ~5× the rows a page"},
		{Name: "fields", Type: TStringList, Enum: fields, MaxLen: len(fields), Description: "compact's fields"},
	}
}

// compactArgs reads format and fields: the fields of the compact form
// (nil for the normal form). fields without format compact is E_ARGUMENT.
func compactArgs[T any](c *Call, cols compactCols[T]) ([]string, error) {
	fields := c.Args.Strings("fields")
	if c.Args.Str("format") != formatCompact {
		if len(fields) > 0 {
			return nil, argError(c.Tool, "fields", "fields without format compact", `format: "compact" with fields, or no fields`)
		}
		return nil, nil
	}
	if len(fields) == 0 {
		return cols.defaults, nil
	}
	// Keep the order the tool lists them in, each once.
	out := make([]string, 0, len(fields))
	for _, f := range cols.fields {
		if slices.Contains(fields, f) {
			out = append(out, f)
		}
	}
	return out, nil
}

// shape is the compact form of rows with the given fields.
func (cols compactCols[T]) shape(rows []T, fields []string) compactPage {
	cells := make([][]any, len(rows))
	for i, r := range rows {
		cells[i] = make([]any, len(fields))
		for j, f := range fields {
			cells[i][j] = cols.cell(r, f)
		}
	}
	out := compactPage{Columns: []string{}, Same: map[string]any{}, Files: []compactFile{}}
	var keep []int
	for j, f := range fields {
		if len(rows) > 1 && sameColumn(cells, j) {
			out.Same[f] = cells[0][j]
			continue
		}
		keep = append(keep, j)
		out.Columns = append(out.Columns, f)
	}
	uidAt := slices.Index(out.Columns, cols.uid)
	byFile := map[string]*compactFile{}
	for i, r := range rows {
		f := cols.file(r)
		g := byFile[f]
		if g == nil {
			g = &compactFile{File: f}
			byFile[f] = g
		}
		row := make([]any, len(keep))
		for k, j := range keep {
			row[k] = cells[i][j]
		}
		g.Rows = append(g.Rows, row)
	}
	files := make([]string, 0, len(byFile))
	for f := range byFile {
		files = append(files, f)
	}
	slices.Sort(files)
	for _, f := range files {
		g := byFile[f]
		if uidAt >= 0 {
			g.UIDPrefix = sharedUIDPrefix(g.Rows, uidAt)
			for _, row := range g.Rows {
				row[uidAt] = strings.TrimPrefix(row[uidAt].(string), g.UIDPrefix)
			}
		}
		out.Files = append(out.Files, *g)
	}
	return out
}

// sameColumn reports whether column j holds one comparable value on every
// row (a map, such as metadata, is never said once).
func sameColumn(cells [][]any, j int) bool {
	first := cells[0][j]
	if _, ok := first.(map[string]any); ok || first == nil {
		return first == nil && allNil(cells, j)
	}
	for _, row := range cells[1:] {
		if _, ok := row[j].(map[string]any); ok || row[j] != first {
			return false
		}
	}
	return true
}

func allNil(cells [][]any, j int) bool {
	for _, row := range cells {
		if row[j] != nil {
			return false
		}
	}
	return true
}

// sharedUIDPrefix is the longest prefix the uid cells in column j share, ending
// at a ':' (a uid's kind and file: "code:function:a/b.go::"); "" when they
// share none.
func sharedUIDPrefix(rows [][]any, j int) string {
	p := rows[0][j].(string)
	for _, row := range rows[1:] {
		u := row[j].(string)
		n := 0
		for n < len(p) && n < len(u) && p[n] == u[n] {
			n++
		}
		p = p[:n]
	}
	// Leave at least one character to every cell: a uid is never only
	// its prefix.
	for _, row := range rows {
		if len(row[j].(string)) == len(p) {
			p = p[:max(len(p)-1, 0)]
		}
	}
	return p[:strings.LastIndexByte(p, ':')+1]
}

// referenceCols is the compact form of cos_graph_references' rows.
var referenceCols = compactCols[query.Reference]{
	fields:   []string{"line", "source", "type", "kind", "label", "via", "through", "extractor", "build_excluded", "metadata"},
	defaults: []string{"line", "source", "type", "via", "through", "build_excluded"},
	uid:      "source",
	file:     func(r query.Reference) string { return r.File },
	cell: func(r query.Reference, f string) any {
		switch f {
		case "line":
			return r.Line
		case "source":
			return r.Source
		case "type":
			return r.Type
		case "kind":
			return r.Kind
		case "label":
			return r.Label
		case "via":
			return r.Via
		case "through":
			return r.Through
		case "extractor":
			return r.Extractor
		case "build_excluded":
			return r.BuildExcluded
		case "metadata":
			return metadataCell(r.Metadata)
		}
		return nil
	},
}

// impactCols is the compact form of cos_graph_impact's rows.
var impactCols = compactCols[query.Dependent]{
	fields:   []string{"line", "uid", "depth", "via", "through", "kind", "label", "end_line", "extractor", "build_excluded", "metadata"},
	defaults: []string{"line", "uid", "depth", "via", "through", "build_excluded"},
	uid:      "uid",
	file:     func(d query.Dependent) string { return d.Path },
	cell: func(d query.Dependent, f string) any {
		switch f {
		case "line":
			return d.Line
		case "uid":
			return d.UID
		case "depth":
			return d.Depth
		case "via":
			return d.Via
		case "through":
			return d.Through
		case "kind":
			return d.Kind
		case "label":
			return d.Label
		case "end_line":
			return d.EndLine
		case "extractor":
			return d.Extractor
		case "build_excluded":
			return d.BuildExcluded
		case "metadata":
			return metadataCell(d.Metadata)
		}
		return nil
	},
}

// metadataCell is a row's metadata cell: {} for none, so the cell is an
// object on every row.
func metadataCell(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}
