package markdown

import (
	"net/url"
	"path"
	"strconv"
	"strings"
	"unicode"

	"github.com/cos-dev/cos/extract/lang"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"

	"github.com/cos-dev/cos/graph"
)

// mdParser is safe for concurrent use: goldmark parsers keep no state
// between Parse calls.
var mdParser = goldmark.New().Parser()

// maxNesting is the deepest nesting of blockquotes and lists on one line
// that extractMarkdown parses: goldmark's time grows with the square of that
// nesting ('>' repeated 100,000 times took 17 s, "1. " repeated 20,000
// times 2 s), and no heading or link needs more than a few levels. Markers
// past this depth are dropped before parsing (capNesting), which keeps the
// extraction linear in the file's size.
const maxNesting = 16

// extract parses a Markdown file with goldmark: the doc:file: node,
// one doc:heading:<path>#<slug>:<level> node per heading (GitHub slugs,
// duplicates -1, -2, …), links_to edges to other docs and to code files of
// the repository, and cites_heading edges for #anchors (resolved against the
// headings of the target file through the declarations table).
func extract(fr *lang.Result, data []byte, e *lang.Env) {
	src := capNesting(lang.SourceText(data), maxNesting)
	docUID := lang.FileNode(fr, nil)
	doc := mdParser.Parse(text.NewReader(src))
	lines := lang.NewLineIndex(src)
	fr.Decl = &lang.Decl{Scope: "md:" + fr.Path, Names: map[string]string{}}
	slugs := map[string]int{}
	type link struct {
		dest string
		line int
	}
	var links []link
	lastLine := 1
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		if n.Type() == ast.TypeBlock && n.Lines().Len() > 0 {
			lastLine = lines.Line(n.Lines().At(0).Start)
		}
		switch x := n.(type) {
		case *ast.Heading:
			title := strings.TrimSpace(inlineText(x, src))
			slug := githubSlug(title, slugs)
			uid := lang.ClampUID("doc:heading:" + lang.UIDPart(fr.Path) + "#" + lang.UIDPart(slug) + ":" + strconv.Itoa(x.Level))
			fr.AddNode(graph.Node{UID: uid, Kind: graph.KindHeading, Label: title, Line: lastLine, Metadata: map[string]any{"level": x.Level, "slug": slug}})
			fr.AddEdge(docUID, uid, graph.EdgeContains, lastLine)
			fr.Decl.Names[slug] = lang.HeadingKindPrefix + strconv.Itoa(x.Level)
		case *ast.Link:
			links = append(links, link{string(x.Destination), lastLine})
		}
		return ast.WalkContinue, nil
	})
	for _, l := range links {
		mdLink(fr, e, docUID, l.dest, l.line)
	}
}

// capNesting returns src with the container markers of each line past the
// depth-th dropped (with the spaces between them), in one pass: blockquote
// markers ('>') and list markers ("-", "*", "+", "1." or "1)" followed by a
// space). Line breaks are kept, so line numbers do not move; src is
// returned as is when no line is that deep.
func capNesting(src []byte, depth int) []byte {
	var out []byte // nil until a line needs cutting
	copied := 0    // src[:copied] is in out
	for start := 0; start < len(src); {
		end := start
		for end < len(src) && src[end] != '\n' {
			end++
		}
		i, n, keep := start, 0, -1
		for {
			j := markerEnd(src[:end], i)
			if j < 0 {
				break
			}
			n++
			if n == depth {
				keep = j
			}
			i = j
		}
		if n > depth {
			out = append(out, src[copied:keep]...)
			copied = i // drop the markers between keep and i
		}
		start = end + 1
	}
	if out == nil {
		return src
	}
	return append(out, src[copied:]...)
}

// markerEnd returns the offset after the container marker that starts at
// line[i] (after up to 3 spaces) and the one space or tab that follows it,
// or -1 when none starts there.
func markerEnd(line []byte, i int) int {
	j := i
	for j < len(line) && j-i < 3 && line[j] == ' ' {
		j++
	}
	if j >= len(line) {
		return -1
	}
	space := func(k int) bool { return k < len(line) && (line[k] == ' ' || line[k] == '\t') }
	switch c := line[j]; {
	case c == '>':
		j++
		if space(j) {
			j++
		}
		return j
	case c == '-' || c == '*' || c == '+':
		if !space(j + 1) {
			return -1
		}
		return j + 2
	case c >= '0' && c <= '9':
		k := j
		for k < len(line) && k-j < 9 && line[k] >= '0' && line[k] <= '9' {
			k++
		}
		if k >= len(line) || (line[k] != '.' && line[k] != ')') || !space(k+1) {
			return -1
		}
		return k + 2
	}
	return -1
}

// mdLink adds the edges of one link destination.
func mdLink(fr *lang.Result, e *lang.Env, docUID, dest string, line int) {
	dest = strings.TrimSpace(dest)
	if dest == "" || strings.HasPrefix(dest, "//") {
		return
	}
	if u, err := url.Parse(dest); err == nil && u.Scheme != "" {
		return // http:, mailto:, …
	}
	target, frag, _ := strings.Cut(dest, "#")
	if t, _, ok := strings.Cut(target, "?"); ok {
		target = t
	}
	if un, err := url.PathUnescape(target); err == nil {
		target = un
	}
	if un, err := url.PathUnescape(frag); err == nil {
		frag = un
	}
	targetPath := fr.Path
	if target != "" {
		if strings.HasPrefix(target, "/") {
			targetPath = path.Clean(strings.TrimPrefix(target, "/"))
		} else {
			targetPath = path.Join(path.Dir(fr.Path), target)
		}
		if targetPath == ".." || strings.HasPrefix(targetPath, "../") {
			return // outside the repository
		}
		// Whether the link holds depends on that file being there: adding
		// or removing it extracts this document again (watchKeys).
		fr.Refs = append(fr.Refs, lang.Ref{Type: lang.RefWatch, Scope: lang.FileWatchScope(targetPath)})
		if !e.Files[targetPath] {
			return // a folder, or a broken link
		}
		fr.AddEdge(docUID, lang.FileUID(targetPath), graph.EdgeLinksTo, line)
	}
	if frag != "" && graph.IsDocPath(targetPath) {
		fr.Refs = append(fr.Refs, lang.Ref{Type: graph.EdgeCitesHeading, From: docUID, Line: line, Scope: "md:" + targetPath, Name: strings.ToLower(frag)})
	}
}

// inlineText is the plain text of a heading: text, code spans and the text
// of links and emphasis, without markup.
func inlineText(n ast.Node, src []byte) string {
	var b strings.Builder
	var rec func(ast.Node)
	rec = func(n ast.Node) {
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			switch x := c.(type) {
			case *ast.Text:
				b.Write(x.Segment.Value(src))
				if x.SoftLineBreak() || x.HardLineBreak() {
					b.WriteByte(' ')
				}
			case *ast.String:
				b.Write(x.Value)
			case *ast.RawHTML:
				// dropped, as GitHub drops tags from slugs
			default:
				rec(c)
			}
		}
	}
	rec(n)
	return b.String()
}

// githubSlug returns GitHub's anchor for a heading title: lower case,
// letters, marks, numbers, '_' and '-' kept (any script), spaces turned
// into '-', everything else dropped; the n-th repeat of a slug gets "-n".
// A title that leaves nothing (only punctuation or emoji) becomes
// "section", so no heading ever has an empty slug. seen counts the slugs
// already used in the document.
func githubSlug(title string, seen map[string]int) string {
	var b strings.Builder
	for _, r := range strings.ToLower(title) {
		switch {
		case unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r) || r == '_' || r == '-':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	base := b.String()
	if strings.Trim(base, "-") == "" {
		base = "section"
	}
	slug := base
	if n, ok := seen[base]; ok {
		for {
			n++
			slug = base + "-" + strconv.Itoa(n)
			if _, taken := seen[slug]; !taken {
				break
			}
		}
		seen[base] = n
	}
	seen[slug] = 0
	return slug
}
