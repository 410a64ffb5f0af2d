package tools

import (
	"fmt"
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
// each row's cells, Files the rows grouped by file and uid prefix (sorted
// by both, rows in page order).
type compactPage struct {
	// Legend says how to read the form (compactLegend).
	Legend  string         `json:"legend"`
	Columns []string       `json:"columns"`
	Same    map[string]any `json:"same"`
	Files   []compactFile  `json:"files"`
}

// compactLegend is data.compact.legend: the compact form read back into
// rows, said in the answer rather than in tools/list.
const compactLegend = "row = columns' values, missing trailing cells empty; same: fields equal on every row of the page, " +
	"or of the group; file's uid field = uid_prefix (default code:function:<file>::) + cell"

// compactFile is the rows of one file. UIDPrefix is the prefix its rows'
// uid cells (source or uid) leave out: the uid is UIDPrefix + the cell. It
// is nil (left out) when it is the usual one, defaultUIDPrefix(File). A
// row ends early when its remaining cells are empty ("", 0, false, {}).
type compactFile struct {
	File      string  `json:"file"`
	UIDPrefix *string `json:"uid_prefix,omitempty"`
	// Same holds the group fields (compactCols.group) the page does not
	// say once: their value on every row of the group.
	Same map[string]any `json:"same,omitempty"`
	Rows [][]any        `json:"rows"`
}

// defaultUIDPrefix is the uid prefix a file's rows share when its group
// leaves uid_prefix out: that of a function or method of the file.
func defaultUIDPrefix(file string) string { return "code:function:" + file + "::" }

// compactCols is how one tool's rows become compact: the file of a row,
// and the value of a field (one of fields).
type compactCols[T any] struct {
	fields   []string
	defaults []string
	// uid is the field holding a uid whose shared prefix a file says once.
	uid string
	// group are fields of few values: rows are grouped by them too, and
	// a group says their value once.
	group []string
	file  func(T) string
	cell  func(T, string) any
}

// compactParams are the format and fields arguments of a tool whose rows
// have these fields.
func compactParams(fields []string) []Param {
	return []Param{
		{Name: "format", Type: TString, Enum: []string{formatRows, formatCompact}, Description: "compact: ~5× rows a page"},
		{Name: "fields", Type: TStringList, Enum: fields, SharedEnum: true},
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
		if c.Args.Has("fields") {
			return nil, argError(c.Tool, "fields", "an empty list", "at least one of "+strings.Join(cols.fields, ", ")+", or no fields for the default columns")
		}
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
	out := compactPage{Legend: compactLegend, Columns: []string{}, Same: map[string]any{}, Files: []compactFile{}}
	// keep are the fields a row holds, grouped those its group says once.
	var keep, grouped []int
	for j, f := range fields {
		switch {
		case len(rows) > 1 && sameColumn(cells, j):
			out.Same[f] = cells[0][j]
		case slices.Contains(cols.group, f):
			grouped = append(grouped, j)
		default:
			keep = append(keep, j)
			out.Columns = append(out.Columns, f)
		}
	}
	uidAt := slices.Index(out.Columns, cols.uid)
	type key struct{ file, prefix, same string }
	groups := map[key]*compactFile{}
	var keys []key
	for i, r := range rows {
		row := make([]any, len(keep))
		for k, j := range keep {
			row[k] = cells[i][j]
		}
		k := key{file: cols.file(r)}
		if uidAt >= 0 {
			uid := row[uidAt].(string)
			k.prefix = uidPrefixOf(uid)
			row[uidAt] = uid[len(k.prefix):]
		}
		for _, j := range grouped {
			k.same += fmt.Sprint(cells[i][j]) + "\x00"
		}
		for end := len(row); ; end-- {
			if end == 0 || !emptyCell(row[end-1]) {
				row = row[:end]
				break
			}
		}
		g := groups[k]
		if g == nil {
			g = &compactFile{File: k.file}
			if uidAt >= 0 && k.prefix != defaultUIDPrefix(k.file) {
				g.UIDPrefix = &k.prefix
			}
			if len(grouped) > 0 {
				g.Same = map[string]any{}
				for _, j := range grouped {
					g.Same[fields[j]] = cells[i][j]
				}
			}
			groups[k] = g
			keys = append(keys, k)
		}
		g.Rows = append(g.Rows, row)
	}
	slices.SortFunc(keys, func(a, b key) int {
		if c := strings.Compare(a.file, b.file); c != 0 {
			return c
		}
		if c := strings.Compare(a.prefix, b.prefix); c != 0 {
			return c
		}
		return strings.Compare(a.same, b.same)
	})
	for _, k := range keys {
		out.Files = append(out.Files, *groups[k])
	}
	return out
}

// emptyCell reports whether a cell holds its field's empty value: a row
// leaves such cells out at its end.
func emptyCell(v any) bool {
	switch x := v.(type) {
	case string:
		return x == ""
	case int:
		return x == 0
	case bool:
		return !x
	case map[string]any:
		return len(x) == 0
	}
	return v == nil
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

// uidPrefixOf is the part of uid a compact row leaves to its group's
// uid_prefix: up to the first "::" ("code:function:a/b.go::"), else up to
// the last ':' ("code:file:"); never all of it.
func uidPrefixOf(uid string) string {
	p := uid[:strings.LastIndexByte(uid, ':')+1]
	if i := strings.Index(uid, "::"); i >= 0 {
		p = uid[:i+2]
	}
	if len(p) == len(uid) {
		return ""
	}
	return p
}

// compactFields are the fields of the compact forms of references and
// impact (a shared vocabulary; each tool takes its own).
var compactFields = []string{"line", "source", "uid", "type", "depth", "via", "through", "kind", "label", "end_line", "extractor", "build_excluded", "metadata"}

// referenceCols is the compact form of cos_graph_references' rows.
var referenceCols = compactCols[query.Reference]{
	fields:   []string{"line", "source", "type", "kind", "label", "via", "through", "extractor", "build_excluded", "metadata"},
	defaults: []string{"line", "source", "type", "via", "through", "build_excluded"},
	uid:      "source",
	group:    []string{"type"},
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
	defaults: []string{"line", "uid", "depth", "via", "build_excluded"},
	uid:      "uid",
	group:    []string{"via"},
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
