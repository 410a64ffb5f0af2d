package tools

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/indexing"
	"github.com/cos-dev/cos/query"
)

func graphRenamePlanTool() *Tool {
	sites := typ([]query.RenameSite{})
	return &Tool{
		Name:        "cos_graph_rename_plan",
		Title:       "Plan a rename",
		Description: "Where the name occurs as a word (code, imports, docs, tests, strings); nodes already named new_name.",
		Data: Fields{"node": typ(query.NodeView{}), "old_name": "string", "new_name": "string", "call_sites": sites, "import_sites": sites,
			"doc_references": sites, "test_references": sites, "string_literals": sites, "definitions": sites,
			"conflicts": typ(query.RenamePlan{}.Conflicts), "counts": typ(map[string]int{}), "files_scanned": "integer", "files_skipped": "integer", "skipped": typ(query.RenamePlan{}.Skipped)},
		Module: "graph", Layer: envelope.LayerGraph, ReadOnly: true, Idempotent: true,
		Example: `{"uid": "code:function:server/serve.go::Serve", "new_name": "ServeHTTP"}`,
		Params: []Param{
			{Name: "uid", Type: TString, Required: true, NonEmpty: true, MaxLen: 1024},
			{Name: "new_name", Type: TString, Required: true, MaxLen: 256},
		},
		Handler: renamePlanTool,
	}
}

// renamePlanTool answers cos_graph_rename_plan (query.RenamePlanOf),
// reading files under the indexed roots only.
func renamePlanTool(ctx context.Context, c *Call) (any, envelope.ToolMeta, error) {
	res, err := c.Resolve(ctx, c.Args.Str("uid"), false)
	if err != nil {
		return nil, envelope.ToolMeta{}, err
	}
	tm := resolvedMeta(res)
	newName := c.Args.Str("new_name")
	if !query.IdentifierPattern.MatchString(newName) {
		return nil, tm, argError(c.Tool, "new_name", describeString(newName), "an identifier: a letter or _ then letters, digits or _")
	}
	node := res.Node
	oldName := query.OldNameOf(node)
	if oldName == "" || !query.IdentifierPattern.MatchString(oldName) {
		return nil, tm, envelope.Errorf(envelope.CodeArgument, "%s is named %q, which is not an identifier a rename can change", node.UID, node.Label)
	}
	if oldName == newName {
		return nil, tm, argError(c.Tool, "new_name", describeString(newName), "a name other than the current one")
	}
	m := indexing.NewPathMapper(c.V, c.ix.Roots())
	plan, err := query.RenamePlanOf(ctx, c.V.Graph, node, oldName, newName, func(p string) ([]byte, string) { fs, rel := m.Map(p); return readUnderRoots(fs, rel) })
	if err != nil {
		return nil, tm, err
	}
	sites := plan.Sites
	counts := map[string]int{}
	for k, v := range sites {
		counts[k] = len(v)
	}
	body := map[string]any{
		"node":          query.ViewOf(node),
		"old_name":      oldName,
		"new_name":      newName,
		"counts":        counts,
		"files_scanned": plan.Scanned,
		"files_skipped": plan.SkippedCount,
		"skipped":       plan.Skipped,
		"conflicts":     plan.Conflicts,
	}
	c.nameNode(query.ViewOf(node))
	c.nameNodes(plan.Conflicts)
	for _, s := range plan.Skipped {
		c.NameFiles(s.Path)
	}
	for k, v := range sites {
		body[k] = v
		for _, s := range v {
			c.NameFiles(s.File)
		}
	}
	return body, tm, nil
}

// describeString renders a received string for an argument error.
func describeString(s string) string {
	if s == "" {
		return "an empty string"
	}
	return fmt.Sprintf("the string %q", clip(s, 60))
}

// readUnderRoots reads the repo-relative file p from the first root that
// holds it. It never follows a path (or a symlink) out of its root, and
// skips directories, non-regular files and files over
// query.RenameMaxFileSize;
// the reason is returned instead of the data.
func readUnderRoots(roots []string, p string) ([]byte, string) {
	if why := validatePathField(p); why != "" {
		return nil, "path " + why
	}
	reason := "not found under the indexed roots"
	for _, root := range roots {
		realRoot, err := filepath.EvalSymlinks(root)
		if err != nil {
			continue
		}
		real, err := filepath.EvalSymlinks(filepath.Join(realRoot, filepath.FromSlash(p)))
		if err != nil {
			continue
		}
		rel, err := filepath.Rel(realRoot, real)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
			reason = "resolves outside the indexed roots"
			continue
		}
		f, err := os.Open(real)
		if err != nil {
			reason = "unreadable"
			continue
		}
		data, why := readBounded(f)
		_ = f.Close()
		return data, why
	}
	return nil, reason
}

func readBounded(f *os.File) ([]byte, string) {
	st, err := f.Stat()
	switch {
	case err != nil:
		return nil, "unreadable"
	case !st.Mode().IsRegular():
		return nil, "not a regular file"
	case st.Size() > query.RenameMaxFileSize:
		return nil, "larger than 2 MiB"
	}
	data, err := io.ReadAll(io.LimitReader(f, query.RenameMaxFileSize+1))
	if err != nil {
		return nil, "unreadable"
	}
	if len(data) > query.RenameMaxFileSize {
		return nil, "larger than 2 MiB"
	}
	if bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) {
		return nil, "not UTF-8 text"
	}
	return data, ""
}

// clip shortens s to at most n characters, marking the cut with "…".
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}
