package main

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf16"

	scippb "github.com/sourcegraph/scip/bindings/go/scip"

	"github.com/cos-dev/cos/extract/scip"
)

// occurrence is one SCIP occurrence, its range converted to 0-based
// lines and byte offsets in the document's own text.
type occurrence struct {
	Symbol string
	Line   int // 0-based
	Col    int // byte offset of the start in Line
	EndCol int // byte offset of the end in Line (on Line; a range spanning lines ends at the line's end)
	Roles  int32
	// EncStart and EncEnd are the 0-based lines of a definition's
	// enclosing range (the whole declaration); -1 when not given.
	EncStart, EncEnd int
}

func (o occurrence) definition() bool {
	return o.Roles&int32(scippb.SymbolRole_Definition) != 0
}

func (o occurrence) importRole() bool {
	return o.Roles&int32(scippb.SymbolRole_Import) != 0
}

// document is one indexed file of the target with its source text.
type document struct {
	// Path is slash-separated and relative to the target folder, as cos
	// names files.
	Path  string
	Lines []string
	Occs  []occurrence
	// ends maps (line, end byte) to the index of the occurrence ending
	// there: the receiver of a call site is found by where it ends.
	ends map[[2]int]int
}

// text returns line i (0-based), "" out of range.
func (d *document) text(i int) string {
	if i < 0 || i >= len(d.Lines) {
		return ""
	}
	return d.Lines[i]
}

// occEndingAt returns the occurrence whose range ends at (line, col).
func (d *document) occEndingAt(line, col int) (occurrence, bool) {
	i, ok := d.ends[[2]int{line, col}]
	if !ok {
		return occurrence{}, false
	}
	return d.Occs[i], true
}

// loadIndex decodes a SCIP index and returns its documents under root,
// keyed by their path relative to root; documents outside root are
// dropped. cwd is the folder the indexer ran in (relative_path is
// relative to the index's project root, or to cwd when that is unset).
func loadIndex(path, cwd, root string) (map[string]*document, error) {
	idx, err := scip.Load(path)
	if err != nil {
		return nil, err
	}
	base := cwd
	if pr := idx.GetMetadata().GetProjectRoot(); pr != "" {
		if u, err := url.Parse(pr); err == nil && u.Scheme == "file" && u.Path != "" {
			base = u.Path
		}
	}
	docs := map[string]*document{}
	canon := map[string]string{}
	for _, sd := range idx.Documents {
		abs := filepath.Join(base, filepath.FromSlash(sd.RelativePath))
		rel, err := filepath.Rel(root, abs)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		src, err := os.ReadFile(abs)
		if err != nil {
			return nil, fmt.Errorf("read indexed file: %w", err)
		}
		d := newDocument(filepath.ToSlash(rel), string(src), sd.PositionEncoding, sd.Occurrences, canon)
		docs[d.Path] = d
	}
	return docs, nil
}

// newDocument converts the SCIP occurrences of one file.
func newDocument(path, src string, enc scippb.PositionEncoding, occs []*scippb.Occurrence, canon map[string]string) *document {
	d := &document{Path: path, Lines: strings.Split(src, "\n"), ends: map[[2]int]int{}}
	for i, l := range d.Lines {
		d.Lines[i] = strings.TrimSuffix(l, "\r")
	}
	for _, o := range occs {
		r := o.Range
		if len(r) != 3 && len(r) != 4 {
			continue
		}
		line, startChar := int(r[0]), int(r[1])
		endLine, endChar := line, int(r[2])
		if len(r) == 4 {
			endLine, endChar = int(r[2]), int(r[3])
		}
		text := d.text(line)
		oc := occurrence{Symbol: canonicalSymbol(o.Symbol, canon), Line: line, Col: byteOffset(text, startChar, enc), Roles: o.SymbolRoles, EncStart: -1, EncEnd: -1}
		if er := o.EnclosingRange; len(er) == 3 || len(er) == 4 {
			oc.EncStart, oc.EncEnd = int(er[0]), int(er[0])
			if len(er) == 4 {
				oc.EncEnd = int(er[2])
			}
		}
		if endLine == line {
			oc.EndCol = byteOffset(text, endChar, enc)
		} else {
			oc.EndCol = len(text)
		}
		d.Occs = append(d.Occs, oc)
		d.ends[[2]int{oc.Line, oc.EndCol}] = len(d.Occs) - 1
	}
	return d
}

// canonicalSymbol drops the package (manager, name, version) of a global
// symbol and keeps its scheme and descriptors; canon caches the results.
// The Python targets are standard library packages, and pyright resolves
// an absolute import of one (import email.utils) to typeshed's stub,
// whose symbols name the package python-stdlib 3.11 where the copy's own
// definitions name the project: without the package both are the same
// module path and definition (doc.go, "Mapping").
func canonicalSymbol(sym string, canon map[string]string) string {
	if c, ok := canon[sym]; ok {
		return c
	}
	c := sym
	if !scippb.IsLocalSymbol(sym) {
		if s, err := scippb.ParseSymbol(sym); err == nil && len(s.Descriptors) > 0 {
			c = s.Scheme + " . . . " + scippb.DescriptorOnlyFormatter.FormatSymbol(s)
		}
	}
	canon[sym] = c
	return c
}

// byteOffset converts a SCIP character offset in line to a byte offset.
// An unspecified encoding is taken as UTF-16 code units: both indexers
// measured here run on Node.js, whose strings are UTF-16.
func byteOffset(line string, char int, enc scippb.PositionEncoding) int {
	if enc == scippb.PositionEncoding_UTF8CodeUnitOffsetFromLineStart {
		return min(char, len(line))
	}
	units := 0
	for i, r := range line {
		if units >= char {
			return i
		}
		if enc == scippb.PositionEncoding_UTF32CodeUnitOffsetFromLineStart {
			units++
		} else {
			units += max(utf16.RuneLen(r), 1)
		}
	}
	return len(line)
}
