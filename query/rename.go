package query

import (
	"bufio"
	"bytes"
	"context"
	"path"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cos-dev/cos/graph"
	"github.com/cos-dev/cos/projections"
)

// Bounds of one rename plan scan (RenamePlanOf).
const (
	RenameMaxFiles    = 2000
	RenameMaxFileSize = 2 << 20 // bytes; larger files are skipped
	renameMaxText     = 200     // characters of a site's line text
	RenameMaxSkipped  = 20      // skipped files listed
)

// IdentifierPattern is a legal new_name: a letter or underscore, then
// letters, digits or underscores (any script).
var IdentifierPattern = regexp.MustCompile(`^[\p{L}_][\p{L}\p{N}_]*$`)

// RenameSite is one place the old name occurs. Line and Column are 1-based;
// Column counts characters (not bytes). Text is the trimmed line.
type RenameSite struct {
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

// OldNameOf is the identifier a rename of n changes: the last dotted
// segment of a symbol's label, a file's base name without extension.
func OldNameOf(n graph.Node) string {
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

// RenameSkip is a file a rename plan did not scan, and why.
type RenameSkip struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// RenamePlan is the answer of RenamePlanOf.
type RenamePlan struct {
	// Sites lists the occurrences by list (siteCall, …, siteDefinition);
	// every list is present, empty when nothing is in it.
	Sites map[string][]RenameSite
	// Conflicts are the nodes of node's file already named the new name
	// (never nil).
	Conflicts []NodeView
	// Scanned counts the files read; SkippedCount those not read, the
	// first RenameMaxSkipped of them listed in Skipped (never nil).
	Scanned, SkippedCount int
	Skipped               []RenameSkip
}

// FileReader returns the content of the repo-relative file p, or why it
// cannot be read (the content is then nil).
type FileReader func(p string) (data []byte, why string)

// RenamePlanOf lists where oldName, the name of node (OldNameOf), occurs
// as a word: in node's file, its referrers' files, then every doc and test
// file of g, at most RenameMaxFiles files, read with read. It fails only
// with ctx's error.
func RenamePlanOf(ctx context.Context, g *projections.Graph, node graph.Node, oldName, newName string, read FileReader) (RenamePlan, error) {
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
		if graph.IsDocPath(p) || IsTestPath(p) {
			addFile(p)
		}
	}
	sites := map[string][]RenameSite{siteCall: {}, siteImport: {}, siteDoc: {}, siteTest: {}, siteString: {}, siteDefinition: {}}
	skipped := []RenameSkip{}
	skippedCount, scanned := 0, 0
	for i, p := range files {
		if err := ctx.Err(); err != nil {
			return RenamePlan{}, err
		}
		if i >= RenameMaxFiles {
			skippedCount += len(files) - i
			break
		}
		data, why := read(p)
		if why != "" {
			skippedCount++
			if len(skipped) < RenameMaxSkipped {
				skipped = append(skipped, RenameSkip{p, why})
			}
			continue
		}
		scanned++
		scanFile(p, data, oldName, node, sites)
	}
	var conflicts []NodeView
	for _, n := range g.NodesByLabel(newName) {
		if n.Path == node.Path {
			conflicts = append(conflicts, ViewOf(n))
		}
	}
	if conflicts == nil {
		conflicts = []NodeView{}
	}
	return RenamePlan{Sites: sites, Conflicts: conflicts, Scanned: scanned, SkippedCount: skippedCount, Skipped: skipped}, nil
}

// scanFile adds every word-bounded occurrence of name in data to sites,
// classified by the file and the line: doc files → doc_references, test
// files → test_references; in code, the node's own declaration line →
// definitions, an import line → import_sites, inside a string literal →
// string_literals, inside a comment → doc_references, else call_sites.
func scanFile(p string, data []byte, name string, node graph.Node, sites map[string][]RenameSite) {
	isDoc, isTest := graph.IsDocPath(p), IsTestPath(p)
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), RenameMaxFileSize+1)
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
			site := RenameSite{File: p, Line: lineNo, Column: utf8.RuneCountInString(line[:at]) + 1, Text: clip(trimmed, renameMaxText)}
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
