package calloracle

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
)

// Line kinds of an oracle's output.
const (
	KindFile  = "file"
	KindCall  = "call"
	KindStats = "stats"
)

// Declaration kinds (Decl.Kind).
const (
	DeclFunction    = "function"
	DeclMethod      = "method"
	DeclConstructor = "constructor"
	DeclClass       = "class"
	DeclFile        = "file"
)

// Site is a call site: a path relative to the project folder and a
// 1-based line and column.
type Site struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Col  int    `json:"col,omitempty"`
}

// Place is one declaration of a name: a file and its 1-based line extent.
type Place struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	EndLine int    `json:"end_line,omitempty"`
}

// Decl is a declaration an oracle resolved a call to, or the one holding
// a call site.
type Decl struct {
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	EndLine int    `json:"end_line,omitempty"`
	// Class is the owner's name inside its file, nested names joined by
	// "." ("" for a free function).
	Class  string `json:"class,omitempty"`
	Name   string `json:"name,omitempty"`
	Params string `json:"params,omitempty"`
	// Kind is one of the Decl* constants.
	Kind string `json:"kind,omitempty"`
	// External is true for a declaration outside the sources.
	External bool `json:"external,omitempty"`
	// Decls are its other declarations (prototypes, in-class declarations
	// of methods defined elsewhere).
	Decls []Place `json:"decls,omitempty"`
}

// Call is one resolved call site.
type Call struct {
	Site       Site   `json:"site"`
	Caller     Decl   `json:"caller"`
	Callee     Decl   `json:"callee"`
	Category   string `json:"category"`
	CalleeKind string `json:"callee_kind"`
	Context    string `json:"context"`
}

// Oracle is what an oracle printed.
type Oracle struct {
	// Files are the files it analysed.
	Files map[string]bool
	Calls []Call
	// Stats are its counts (unresolved, external, compiler errors, ...).
	Stats map[string]int
}

// line is one decoded line of any kind.
type line struct {
	Kind string `json:"kind"`
	File string `json:"file"`
	Call
}

// Read decodes an oracle's JSON lines. A malformed line is an error
// naming its number; an unknown kind is skipped.
func Read(r io.Reader) (*Oracle, error) {
	or := &Oracle{Files: map[string]bool{}, Stats: map[string]int{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		b := sc.Bytes()
		if len(b) == 0 {
			continue
		}
		var l line
		if err := json.Unmarshal(b, &l); err != nil {
			return nil, fmt.Errorf("oracle line %d: %w", n, err)
		}
		switch l.Kind {
		case KindFile:
			or.Files[l.File] = true
		case KindCall:
			or.Calls = append(or.Calls, l.Call)
		case KindStats:
			var m map[string]json.RawMessage
			if err := json.Unmarshal(b, &m); err != nil {
				return nil, fmt.Errorf("oracle line %d: %w", n, err)
			}
			for k, v := range m {
				if i, err := strconv.Atoi(string(v)); err == nil {
					or.Stats[k] += i
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read oracle: %w", err)
	}
	return or, nil
}

// Writer prints oracle lines.
type Writer struct {
	enc *json.Encoder
}

// NewWriter returns a Writer printing to w.
func NewWriter(w io.Writer) *Writer {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &Writer{enc: enc}
}

// File prints a file line.
func (w *Writer) File(path string) error {
	return w.enc.Encode(struct {
		Kind string `json:"kind"`
		File string `json:"file"`
	}{KindFile, path})
}

// Call prints a call line.
func (w *Writer) Call(c Call) error {
	return w.enc.Encode(struct {
		Kind string `json:"kind"`
		Call
	}{KindCall, c})
}

// Stats prints a stats line.
func (w *Writer) Stats(counts map[string]int) error {
	m := map[string]any{"kind": KindStats}
	for k, v := range counts {
		m[k] = v
	}
	return w.enc.Encode(m)
}
