package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/query"
)

// openCallersTree writes and indexes a real Go module where hub.Hub has
// files×per callers, in files callers/cNN.go (one caller a line), plus
// extra files; go type-checks it.
func openCallersTree(t *testing.T, files, per int, extra map[string]string) *graphRepo {
	t.Helper()
	tree := map[string]string{
		"go.mod":     "module example.com/m\n\ngo 1.22\n",
		"hub/hub.go": "package hub\n\n// Hub is what everyone calls.\nfunc Hub() {}\n",
	}
	for f := range files {
		var b strings.Builder
		b.WriteString("package callers\n\nimport \"example.com/m/hub\"\n\n")
		for i := range per {
			fmt.Fprintf(&b, "func Caller%02d_%03d() { hub.Hub() }\n", f, i)
		}
		tree[fmt.Sprintf("callers/c%02d.go", f)] = b.String()
	}
	for p, src := range extra {
		tree[p] = src
	}
	r := openGraphRepo(t, tree, envelope.Options{})
	if _, err := r.s.Index(context.Background(), r.root, nil); err != nil {
		t.Fatal(err)
	}
	return r
}

const hubUID = "code:function:hub/hub.go::Hub"

// compactRows flattens data.compact back into rows: field → value, with
// the file under fileKey, the page's and the group's same fields, and uid
// cells prefixed by their group's uid_prefix (by default
// code:function:<file>::); a cell a row leaves out at its end is absent.
func compactRows(t *testing.T, data map[string]any, fileKey, uidField string) []map[string]any {
	t.Helper()
	cp, ok := data["compact"].(map[string]any)
	if !ok {
		t.Fatalf("no compact: %v", data)
	}
	cols, _ := cp["columns"].([]any)
	same, _ := cp["same"].(map[string]any)
	var out []map[string]any
	for _, fa := range cp["files"].([]any) {
		f := fa.(map[string]any)
		prefix, ok := f["uid_prefix"].(string)
		if !ok {
			prefix = "code:function:" + f["file"].(string) + "::"
		}
		groupSame, _ := f["same"].(map[string]any)
		for _, ra := range f["rows"].([]any) {
			cells := ra.([]any)
			if len(cells) > len(cols) {
				t.Fatalf("row %v has %d cells, columns %v", cells, len(cells), cols)
			}
			row := map[string]any{fileKey: f["file"]}
			for k, v := range same {
				row[k] = v
			}
			for k, v := range groupSame {
				row[k] = v
			}
			for i, c := range cols {
				if i < len(cells) {
					row[c.(string)] = cells[i]
				}
			}
			if s, ok := row[uidField].(string); ok {
				row[uidField] = prefix + s
			}
			out = append(out, row)
		}
	}
	return out
}

// TestGraphPage_CompactHoldsFiveHundredRows: limit 1000 over 1,200 real
// callers answers a page the budget cut (meta says so) in the normal form,
// and ≥ 500 rows in the compact form, which says the same rows.
func TestGraphPage_CompactHoldsFiveHundredRows(t *testing.T) {
	r := openCallersTree(t, 12, 100, nil)
	for _, tc := range []struct{ tool, list, file, uid, args string }{
		{"cos_graph_references", "references", "file", "source", `"uid": "` + hubUID + `", "kinds": ["calls"], "limit": 1000`},
		{"cos_graph_impact", "nodes", "path", "uid", `"uid": "` + hubUID + `", "depth": 1, "edge_types": ["calls"], "limit": 1000`},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			e := graphOK(t, r.s, tc.tool, "{"+tc.args+"}")
			rows := graphList(t, e.Data, tc.list)
			m := graphMeta(e)
			if e.Data["count"] != 1200.0 || len(rows) >= 500 || e.Data["listed"] != float64(len(rows)) {
				t.Fatalf("normal form: count %v listed %v (%d rows)", e.Data["count"], e.Data["listed"], len(rows))
			}
			if m["page_cut"] != "budget" || m["page_budget_chars"] != float64(envelope.DefaultBudgetChars) || e.Data["limit"] != float64(len(rows)) {
				t.Fatalf("normal form cut to %d rows: meta page_cut %v page_budget_chars %v, limit %v", len(rows), m["page_cut"], m["page_budget_chars"], e.Data["limit"])
			}
			normal := len(rows)

			e = graphOK(t, r.s, tc.tool, "{"+tc.args+`, "format": "compact"}`)
			got := compactRows(t, e.Data, tc.file, tc.uid)
			if len(got) < 500 || e.Data["listed"] != float64(len(got)) || m["truncated"] == true {
				t.Fatalf("compact form: %d rows (listed %v), want ≥ 500", len(got), e.Data["listed"])
			}
			t.Logf("%s limit 1000: %d rows a page normal, %d compact", tc.tool, normal, len(got))
			if _, ok := e.Data[tc.list]; ok {
				t.Fatalf("compact form also carries %s", tc.list)
			}
			// The compact rows say what the normal rows say, field for field.
			full := graphOK(t, r.s, tc.tool, "{"+tc.args+`, "format": "compact", "fields": ["line", "`+tc.uid+`", "kind", "label", "via", "through", "extractor"]}`)
			fr := compactRows(t, full.Data, tc.file, tc.uid)
			want := map[string]map[string]any{}
			cursor := ""
			for len(want) < len(fr) {
				args := "{" + tc.args
				if cursor != "" {
					args += `, "cursor": "` + cursor + `"`
				}
				pe := graphOK(t, r.s, tc.tool, args+"}")
				for _, row := range graphList(t, pe.Data, tc.list) {
					want[row[tc.uid].(string)] = row
				}
				if cursor, _ = pe.Data["next_cursor"].(string); cursor == "" {
					break
				}
			}
			for _, row := range fr {
				w := want[row[tc.uid].(string)]
				if w == nil {
					t.Fatalf("compact row %v is in no normal page", row)
				}
				for k, v := range row {
					if wv, ok := w[k]; ok && fmt.Sprint(wv) != fmt.Sprint(v) || !ok && v != "" && v != 0.0 {
						t.Fatalf("field %s: compact %v, normal %v (row %v)", k, v, w[k], w)
					}
				}
			}
		})
	}
}

// TestGraphPage_CompactFields: fields picks the columns, a field equal on
// every row is said once, uid_prefix carries the shared prefix, and fields
// without the compact form is refused.
func TestGraphPage_CompactFields(t *testing.T) {
	r := openCallersTree(t, 2, 3, nil)
	e := graphOK(t, r.s, "cos_graph_references", `{"uid": "`+hubUID+`", "kinds": ["calls"], "format": "compact", "fields": ["source", "type", "line"]}`)
	cp := e.Data["compact"].(map[string]any)
	if cols := fmt.Sprint(cp["columns"]); cols != "[line source]" {
		t.Fatalf("columns %s, want [line source] (type said once)", cols)
	}
	if same := cp["same"].(map[string]any); len(same) != 1 || same["type"] != "calls" {
		t.Fatalf("same %v", same)
	}
	files := cp["files"].([]any)
	if len(files) != 2 {
		t.Fatalf("files %v", files)
	}
	f0 := files[0].(map[string]any)
	if _, said := f0["uid_prefix"]; f0["file"] != "callers/c00.go" || said {
		t.Fatalf("file group %v", f0)
	}
	if rows := f0["rows"].([]any); len(rows) != 3 || fmt.Sprint(rows[0]) != "[5 Caller00_000]" {
		t.Fatalf("rows %v", rows)
	}
	fe := graphFail(t, r.s, "cos_graph_impact", `{"uid": "`+hubUID+`", "fields": ["uid"]}`, envelope.CodeArgument)
	if !strings.Contains(fe.Error.Message, "compact") {
		t.Fatalf("message %q", fe.Error.Message)
	}
	graphFail(t, r.s, "cos_graph_references", `{"uid": "`+hubUID+`", "format": "compact", "fields": ["path"]}`, envelope.CodeArgument)
	graphFail(t, r.s, "cos_graph_references", `{"uid": "`+hubUID+`", "format": "compact", "fields": []}`, envelope.CodeArgument)
	// A page the budget did not cut says nothing of a cut.
	if m := graphMeta(e); m["page_cut"] != nil || m["page_budget_chars"] != nil {
		t.Fatalf("uncut page: meta %v", m)
	}
}

// TestGraphPage_FallbackFilesListed: files read by syntax only (a type
// error) make an answer a lower bound; meta.fallback_files names the first
// of them, and cos_graph_doctor list pages them all.
func TestGraphPage_FallbackFilesListed(t *testing.T) {
	bad := func(n int) string {
		return fmt.Sprintf("package bad%d\n\nimport \"example.com/m/hub\"\n\nvar x int = \"not an int\"\n\nfunc Broken() { hub.Hub() }\n", n)
	}
	r := openCallersTree(t, 1, 2, map[string]string{"bad1/bad.go": bad(1), "bad2/bad.go": bad(2)})
	e := graphOK(t, r.s, "cos_graph_references", `{"uid": "`+hubUID+`"}`)
	m := graphMeta(e)
	reasons, _ := m["completeness_reasons"].(map[string]any)
	if m["completeness"] != "lower_bound" || reasons["syntax_fallback_files"] != 2.0 {
		t.Fatalf("completeness %v %v", m["completeness"], reasons)
	}
	if got := fmt.Sprint(m["fallback_files"]); got != "[bad1/bad.go bad2/bad.go]" {
		t.Fatalf("meta.fallback_files %s", got)
	}

	var paths []string
	cursor := ""
	for page := 0; page < 4; page++ {
		args := `{"list": "syntax_fallback_files", "limit": 1`
		if cursor != "" {
			args += `, "cursor": "` + cursor + `"`
		}
		d := graphOK(t, r.s, "cos_graph_doctor", args+"}")
		files := graphList(t, d.Data, "files")
		if d.Data["count"] != 2.0 || len(files) != 1 || files[0]["fallback"] != "type_error" || files[0]["detail"] == "" {
			t.Fatalf("page %d: %v", page, d.Data)
		}
		paths = append(paths, files[0]["path"].(string))
		if cursor, _ = d.Data["next_cursor"].(string); cursor == "" {
			break
		}
	}
	if !slices.Equal(paths, []string{"bad1/bad.go", "bad2/bad.go"}) {
		t.Fatalf("listed %v", paths)
	}
	graphFail(t, r.s, "cos_graph_doctor", `{"list": "syntax_fallback_files", "fix": true}`, envelope.CodeArgument)
	graphFail(t, r.s, "cos_graph_doctor", `{"limit": 5}`, envelope.CodeArgument)
	graphFail(t, r.s, "cos_graph_doctor", `{"list": "stale_paths"}`, envelope.CodeArgument)

	// An exact answer names no fallback file.
	r2 := openCallersTree(t, 1, 2, nil)
	if m := graphMeta(graphOK(t, r2.s, "cos_graph_references", `{"uid": "`+hubUID+`"}`)); m["fallback_files"] != nil {
		t.Fatalf("exact answer: meta %v", m)
	}
}

// TestGraphPage_CompactShapeRoundTrips: mixed edge types are grouped with
// their type said once per group, a uid outside the usual prefix gets its
// own group's uid_prefix, empty trailing cells are left out, and the rows
// read back are the rows given.
func TestGraphPage_CompactShapeRoundTrips(t *testing.T) {
	refs := []query.Reference{
		{Type: "calls", Source: "code:function:a.go::F", File: "a.go", Line: 3},
		{Type: "references", Source: "code:function:a.go::G", File: "a.go", Line: 9, Via: "implements", Through: "code:function:i.go::I.M"},
		{Type: "calls", Source: "code:file:a.go", File: "a.go", Line: 1},
		{Type: "calls", Source: "code:class:b.go::T", File: "b.go", Line: 4, BuildExcluded: true},
	}
	cp := referenceCols.shape(refs, referenceCols.defaults)
	b, err := json.Marshal(map[string]any{"compact": cp})
	if err != nil {
		t.Fatal(err)
	}
	var data map[string]any
	if err := json.Unmarshal(b, &data); err != nil {
		t.Fatal(err)
	}
	got := compactRows(t, data, "file", "source")
	if len(got) != len(refs) || !strings.Contains(string(b), `"uid_prefix":"code:file:"`) || !strings.Contains(string(b), `"same":{"type":"references"}`) {
		t.Fatalf("compact %s", b)
	}
	for _, want := range refs {
		found := false
		for _, row := range got {
			if row["source"] == want.Source {
				found = true
				if row["type"] != want.Type || row["line"] != float64(want.Line) || row["file"] != want.File ||
					(row["via"] != nil || want.Via != "") && row["via"] != want.Via ||
					(row["through"] != nil || want.Through != "") && row["through"] != want.Through ||
					(row["build_excluded"] != nil || want.BuildExcluded) && row["build_excluded"] != want.BuildExcluded {
					t.Errorf("row %v, want %+v", row, want)
				}
			}
		}
		if !found {
			t.Errorf("%s missing from %s", want.Source, b)
		}
	}
}
