package extract

import (
	"net/url"
	"path"
	"strconv"
	"strings"
	"unicode"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"

	"github.com/cos-dev/cos/graph"
)

// mdParser is safe for concurrent use: goldmark parsers keep no state
// between Parse calls.
var mdParser = goldmark.New().Parser()

// headingKindPrefix marks a heading in the declarations table; the level
// follows it ("heading:2").
const headingKindPrefix = "heading:"

// extractMarkdown parses a Markdown file with goldmark: the doc:file: node,
// one doc:heading:<path>#<slug>:<level> node per heading (GitHub slugs,
// duplicates -1, -2, …), links_to edges to other docs and to code files of
// the repository, and cites_heading edges for #anchors (resolved against the
// headings of the target file through the declarations table).
func extractMarkdown(fr *fileResult, data []byte, e *env) {
	src := sourceText(data)
	docUID := fileNode(fr, nil)
	doc := mdParser.Parse(text.NewReader(src))
	lines := newLineIndex(src)
	fr.Decl = &decl{Scope: "md:" + fr.Path, Names: map[string]string{}}
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
			lastLine = lines.line(n.Lines().At(0).Start)
		}
		switch x := n.(type) {
		case *ast.Heading:
			title := strings.TrimSpace(inlineText(x, src))
			slug := githubSlug(title, slugs)
			uid := clampUID("doc:heading:" + uidPart(fr.Path) + "#" + uidPart(slug) + ":" + strconv.Itoa(x.Level))
			fr.node(graph.Node{UID: uid, Kind: graph.KindHeading, Label: title, Line: lastLine, Metadata: map[string]any{"level": x.Level, "slug": slug}})
			fr.edge(docUID, uid, graph.EdgeContains, lastLine)
			fr.Decl.Names[slug] = headingKindPrefix + strconv.Itoa(x.Level)
		case *ast.Link:
			links = append(links, link{string(x.Destination), lastLine})
		}
		return ast.WalkContinue, nil
	})
	for _, l := range links {
		mdLink(fr, e, docUID, l.dest, l.line)
	}
}

// mdLink adds the edges of one link destination.
func mdLink(fr *fileResult, e *env, docUID, dest string, line int) {
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
		if targetPath == ".." || strings.HasPrefix(targetPath, "../") || !e.files[targetPath] {
			return // outside the repository, a folder, or a broken link
		}
		fr.edge(docUID, fileUID(targetPath), graph.EdgeLinksTo, line)
	}
	if frag != "" && graph.IsDocPath(targetPath) {
		fr.Refs = append(fr.Refs, ref{Type: graph.EdgeCitesHeading, From: docUID, Line: line, Scope: "md:" + targetPath, Name: strings.ToLower(frag)})
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
