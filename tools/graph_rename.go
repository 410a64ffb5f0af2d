package tools

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cos-dev/cos/envelope"
	"github.com/cos-dev/cos/graph"
)

// Bounds of one cos_graph_rename_plan scan.
const (
	renameMaxFiles    = 2000
	renameMaxFileSize = 2 << 20 // bytes; larger files are skipped
	renameMaxText     = 200     // characters of a site's line text
	renameMaxSkipped  = 20      // skipped files listed
)

// identifierPattern is a legal new_name: a letter or underscore, then
// letters, digits or underscores (any script).
var identifierPattern = regexp.MustCompile(`^[\p{L}_][\p{L}\p{N}_]*$`)

// renameSite is one place the old name occurs. Line and Column are 1-based;
// Column counts characters (not bytes). Text is the trimmed line.
type renameSite struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
	Text   string `json:"text"`
}

// Site lists of a rename plan (keys the budget ladder trims, docs/envelope.md)
// plus definitions.
const (
	siteCall       = "call_sites"
	siteImport     = "import_sites"
	siteDoc        = "doc_references"
	siteTest       = "test_references"
	siteString     = "string_literals"
	siteDefinition = "definitions"
)

func graphRenamePlanTool() *Tool {
	return &Tool{
		Name:        "cos_graph_rename_plan",
		Title:       "Plan a rename",
		Description: "Where the name occurs as a word (code, imports, docs, tests, strings); nodes already named new_name.",
		Data: Fields{"node": "object", "old_name": "string", "new_name": "string", "call_sites": "[]object", "import_sites": "[]object",
			"doc_references": "[]object", "test_references": "[]object", "string_literals": "[]object", "definitions": "[]object",
			"conflicts": "[]object", "counts": "object", "files_scanned": "integer", "files_skipped": "integer", "skipped": "[]object"},
		Module: "graph", Layer: envelope.LayerGraph, ReadOnly: true, Idempotent: true,
		Example: `{"uid": "code:function:server/serve.go::Serve", "new_name": "ServeHTTP"}`,
		Params: []Param{
			{Name: "uid", Type: TString, Required: true, NonEmpty: true, MaxLen: 1024},
			{Name: "new_name", Type: TString, Required: true, MaxLen: 256},
		},
		Handler: renamePlanTool,
	}
}

// oldNameOf is the identifier a rename of n changes: the last dotted
// segment of a symbol's label, a file's base name without extension.
func oldNameOf(n graph.Node) string {
	name := n.Label
	switch n.Kind {
	case graph.KindFile, graph.KindDocFile:
		base := path.Base(n.Path)
		if n.Path == "" {
			base = path.Base(name)
		}
		return strings.TrimSuffix(base, path.Ext(base))
	case graph.KindFunction, graph.KindMethod, graph.KindClass:
		if i := strings.LastIndexAny(name, ".:"); i >= 0 {
			name = name[i+1:]
		}
		name = strings.TrimSuffix(name, "()")
	}
	return name
}

func renamePlanTool(ctx context.Context, c *Call) (any, envelope.ToolMeta, error) {
	res, err := c.Resolve(ctx, c.Args.Str("uid"), false)
	if err != nil {
		return nil, envelope.ToolMeta{}, err
	}
	tm := resolvedMeta(res)
	newName := c.Args.Str("new_name")
	if !identifierPattern.MatchString(newName) {
		return nil, tm, argError(c.Tool, "new_name", describeString(newName), "an identifier: a letter or _ then letters, digits or _")
	}
	node := res.Node
	oldName := oldNameOf(node)
	if oldName == "" || !identifierPattern.MatchString(oldName) {
		return nil, tm, envelope.Errorf(envelope.CodeArgument, "%s is named %q, which is not an identifier a rename can change", node.UID, node.Label)
	}
	if oldName == newName {
		return nil, tm, argError(c.Tool, "new_name", describeString(newName), "a name other than the current one")
	}
	g := c.V.Graph
	// Files in scan order: the node's, its referrers', then every doc and
	// test file of the graph.
	var files []string
	seen := map[string]bool{}
	addFile := func(p string) {
		if p != "" && !seen[p] {
			seen[p] = true
			files = append(files, p)
		}
	}
	addFile(node.Path)
	var referrers []string
	for _, e := range g.In(node.UID) {
		if n, ok := g.Node(e.Source); ok && n.Path != "" {
			referrers = append(referrers, n.Path)
		}
	}
	sort.Strings(referrers)
	for _, p := range referrers {
		addFile(p)
	}
	// Extracted files, and the file nodes agents wrote (O(nodes)).
	var others []string
	for _, f := range g.Files() {
		others = append(others, f.Path)
	}
	g.Nodes(func(n graph.Node) bool {
		if n.Kind == graph.KindFile || n.Kind == graph.KindDocFile {
			others = append(others, n.Path)
		}
		return true
	})
	sort.Strings(others)
	for _, p := range others {
		if graph.IsDocPath(p) || isTestPath(p) {
			addFile(p)
		}
	}
	sites := map[string][]renameSite{siteCall: {}, siteImport: {}, siteDoc: {}, siteTest: {}, siteString: {}, siteDefinition: {}}
	type skip struct {
		Path   string `json:"path"`
		Reason string `json:"reason"`
	}
	skipped := []skip{}
	skippedCount, scanned := 0, 0
	roots := c.ix.Roots()
	for i, p := range files {
		if err := ctx.Err(); err != nil {
			return nil, tm, err
		}
		if i >= renameMaxFiles {
			skippedCount += len(files) - i
			break
		}
		data, why := readUnderRoots(roots, p)
		if why != "" {
			skippedCount++
			if len(skipped) < renameMaxSkipped {
				skipped = append(skipped, skip{p, why})
			}
			continue
		}
		scanned++
		scanFile(p, data, oldName, node, sites)
	}
	var conflicts []nodeView
	for _, n := range g.NodesByLabel(newName) {
		if n.Path == node.Path {
			conflicts = append(conflicts, viewOf(n))
		}
	}
	counts := map[string]int{}
	for k, v := range sites {
		counts[k] = len(v)
	}
	body := map[string]any{
		"node":          viewOf(node),
		"old_name":      oldName,
		"new_name":      newName,
		"counts":        counts,
		"files_scanned": scanned,
		"files_skipped": skippedCount,
		"skipped":       skipped,
		"conflicts":     conflicts,
	}
	if conflicts == nil {
		body["conflicts"] = []nodeView{}
	}
	for k, v := range sites {
		body[k] = v
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
// skips directories, non-regular files and files over renameMaxFileSize;
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
	case st.Size() > renameMaxFileSize:
		return nil, "larger than 2 MiB"
	}
	data, err := io.ReadAll(io.LimitReader(f, renameMaxFileSize+1))
	if err != nil {
		return nil, "unreadable"
	}
	if len(data) > renameMaxFileSize {
		return nil, "larger than 2 MiB"
	}
	if bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) {
		return nil, "not UTF-8 text"
	}
	return data, ""
}

// scanFile adds every word-bounded occurrence of name in data to sites,
// classified by the file and the line: doc files → doc_references, test
// files → test_references; in code, the node's own declaration line →
// definitions, an import line → import_sites, inside a string literal →
// string_literals, inside a comment → doc_references, else call_sites.
func scanFile(p string, data []byte, name string, node graph.Node, sites map[string][]renameSite) {
	isDoc, isTest := graph.IsDocPath(p), isTestPath(p)
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), renameMaxFileSize+1)
	inImportBlock := false
	for lineNo := 1; sc.Scan(); lineNo++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		importLine := inImportBlock || isImportLine(trimmed)
		switch {
		case strings.HasPrefix(trimmed, "import (") || trimmed == "import(":
			inImportBlock = true
		case inImportBlock && strings.HasPrefix(trimmed, ")"):
			inImportBlock = false
		}
		for _, at := range wordOccurrences(line, name) {
			site := renameSite{File: p, Line: lineNo, Column: utf8.RuneCountInString(line[:at]) + 1, Text: clip(trimmed, renameMaxText)}
			list := siteCall
			switch {
			case isDoc:
				list = siteDoc
			case isTest:
				list = siteTest
			case p == node.Path && lineNo == node.Line:
				list = siteDefinition
			case importLine:
				list = siteImport
			case inString(line, at):
				list = siteString
			case inComment(line, at):
				list = siteDoc
			}
			sites[list] = append(sites[list], site)
		}
	}
}

// isImportLine reports whether a trimmed line imports (Go, Python, JS/TS,
// C).
func isImportLine(t string) bool {
	for _, pre := range []string{"import ", "from ", "#include", "export * from", "export {"} {
		if strings.HasPrefix(t, pre) {
			return true
		}
	}
	return strings.Contains(t, "require(") && !strings.Contains(t, "(function")
}

// wordOccurrences returns the byte offsets of name in line where neither
// neighbour is a letter, a digit or an underscore.
func wordOccurrences(line, name string) []int {
	var out []int
	for from := 0; ; {
		i := strings.Index(line[from:], name)
		if i < 0 {
			return out
		}
		at := from + i
		end := at + len(name)
		before, _ := utf8.DecodeLastRuneInString(line[:at])
		after, _ := utf8.DecodeRuneInString(line[end:])
		if (at == 0 || !isWordRune(before)) && (end == len(line) || !isWordRune(after)) {
			out = append(out, at)
		}
		from = end
	}
}

func isWordRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// inString reports whether byte offset at of line lies inside a "…", '…'
// or `…` literal opened on the same line.
func inString(line string, at int) bool {
	var quote byte
	for i := 0; i < at; i++ {
		switch ch := line[i]; {
		case quote != 0 && ch == '\\':
			i++
		case quote != 0 && ch == quote:
			quote = 0
		case quote == 0 && (ch == '"' || ch == '\'' || ch == '`'):
			quote = ch
		}
	}
	return quote != 0
}

// inComment reports whether byte offset at of line follows a // or #
// comment marker outside a string, or the line is a block comment line.
func inComment(line string, at int) bool {
	t := strings.TrimSpace(line)
	if strings.HasPrefix(t, "*") || strings.HasPrefix(t, "/*") {
		return true
	}
	for _, mark := range []string{"//", "#"} {
		for from := 0; ; {
			i := strings.Index(line[from:at], mark)
			if i < 0 {
				break
			}
			if !inString(line, from+i) {
				return true
			}
			from += i + len(mark)
		}
	}
	return false
}

// clip shortens s to at most n characters, marking the cut with "…".
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}
