package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// bareLoc is one location of clang's JSON dump. The dumper writes a
// file only when it differs from the previous location written, and a
// line only when it or the file differs, so every location is read in
// document order (locState) to know its file and line.
type bareLoc struct {
	File         string `json:"file"`
	Line         int    `json:"line"`
	Col          int    `json:"col"`
	Offset       *int   `json:"offset"`
	IncludedFrom *struct {
		File string `json:"file"`
	} `json:"includedFrom"`
	SpellingLoc  *bareLoc `json:"spellingLoc"`
	ExpansionLoc *bareLoc `json:"expansionLoc"`
}

// loc is a resolved location: the expansion location of a macro use.
type loc struct {
	File      string
	Line, Col int
	// Macro is true when the location comes from a macro expansion.
	Macro bool
}

// locState tracks the dumper's last file and line.
type locState struct {
	file string
	line int
}

// bare fills in a plain location's file and line.
func (s *locState) bare(b *bareLoc) loc {
	if b == nil || b.Offset == nil && b.Line == 0 && b.File == "" {
		return loc{}
	}
	if b.File != "" {
		s.file = b.File
	}
	if b.Line != 0 {
		s.line = b.Line
	}
	return loc{File: s.file, Line: s.line, Col: b.Col}
}

// resolve reads a location (plain, or spelling then expansion) and
// returns where it is written: the expansion location for a macro.
func (s *locState) resolve(b *bareLoc) loc {
	if b == nil {
		return loc{}
	}
	if b.SpellingLoc != nil || b.ExpansionLoc != nil {
		s.bare(b.SpellingLoc)
		l := s.bare(b.ExpansionLoc)
		l.Macro = true
		return l
	}
	return s.bare(b)
}

// declRef is the bare reference to a declaration an expression carries.
type declRef struct {
	ID   string `json:"id"`
	Kind string `json:"kind"`
	Name string `json:"name"`
}

// qualType is a type as the dumper prints it.
type qualType struct {
	QualType          string `json:"qualType"`
	DesugaredQualType string `json:"desugaredQualType"`
}

// node is what the walker keeps of one AST node: its attributes, read
// before its children (the dumper writes "inner" last).
type node struct {
	ID, Kind, Name, Mangled string
	Loc, Begin, End         loc
	Implicit                bool
	StorageClass            string
	Virtual                 bool
	PreviousDecl            string
	ParentContext           string
	Ref                     *declRef // referencedDecl
	MemberRef               string   // referencedMemberDecl
	Type                    qualType
	CtorType                qualType
	IsLambda                bool
	// First is the first child, kept for call expressions.
	First *node
	// HasBody is set when a child is a compound statement.
	HasBody bool
}

// visitor is called as the walk enters and leaves nodes.
type visitor interface {
	// enter is called after a node's attributes are read, before its
	// children; parent is nil at the root.
	enter(n *node)
	// leave is called after its children.
	leave(n *node)
}

// walker decodes one dump as a stream.
type walker struct {
	dec   *json.Decoder
	state locState
	v     visitor
}

// walk decodes the whole dump from r.
func walk(r io.Reader, v visitor) error {
	w := &walker{dec: json.NewDecoder(r), v: v}
	_, err := w.object()
	if err != nil {
		return fmt.Errorf("read AST dump: %w", err)
	}
	return nil
}

var errShape = errors.New("unexpected JSON shape")

func (w *walker) delim(want json.Delim) error {
	t, err := w.dec.Token()
	if err != nil {
		return err
	}
	if d, ok := t.(json.Delim); !ok || d != want {
		return fmt.Errorf("%w: %v instead of %v", errShape, t, want)
	}
	return nil
}

// object reads one node object and its children.
func (w *walker) object() (*node, error) {
	if err := w.delim('{'); err != nil {
		return nil, err
	}
	n := &node{}
	entered := false
	for w.dec.More() {
		t, err := w.dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := t.(string)
		if !ok {
			return nil, fmt.Errorf("%w: key %v", errShape, t)
		}
		if key == "inner" {
			if !entered {
				w.v.enter(n)
				entered = true
			}
			if err := w.children(n); err != nil {
				return nil, err
			}
			continue
		}
		if err := w.attr(n, key); err != nil {
			return nil, fmt.Errorf("%s: %w", key, err)
		}
	}
	if err := w.delim('}'); err != nil {
		return nil, err
	}
	if !entered {
		w.v.enter(n)
	}
	w.v.leave(n)
	return n, nil
}

func (w *walker) children(n *node) error {
	if err := w.delim('['); err != nil {
		return err
	}
	first := true
	for w.dec.More() {
		c, err := w.object()
		if err != nil {
			return err
		}
		if first {
			n.First = c
			first = false
		}
		if c.Kind == "CompoundStmt" || c.Kind == "CXXTryStmt" {
			n.HasBody = true
		}
		c.First = trimChain(c.First)
	}
	return w.delim(']')
}

// trimChain keeps only the first-child chain a call needs (a few levels).
func trimChain(n *node) *node {
	d := n
	for i := 0; d != nil && i < 6; i++ {
		d = d.First
	}
	if d != nil {
		d.First = nil
	}
	return n
}

// attr reads one attribute into n.
func (w *walker) attr(n *node, key string) error {
	var err error
	switch key {
	case "id":
		err = w.dec.Decode(&n.ID)
	case "kind":
		err = w.dec.Decode(&n.Kind)
	case "name":
		err = w.dec.Decode(&n.Name)
	case "mangledName":
		err = w.dec.Decode(&n.Mangled)
	case "loc":
		var b bareLoc
		if err = w.dec.Decode(&b); err == nil {
			n.Loc = w.state.resolve(&b)
		}
	case "range":
		var r struct {
			Begin *bareLoc `json:"begin"`
			End   *bareLoc `json:"end"`
		}
		if err = w.dec.Decode(&r); err == nil {
			n.Begin = w.state.resolve(r.Begin)
			n.End = w.state.resolve(r.End)
		}
	case "isImplicit":
		err = w.dec.Decode(&n.Implicit)
	case "storageClass":
		err = w.dec.Decode(&n.StorageClass)
	case "virtual":
		err = w.dec.Decode(&n.Virtual)
	case "previousDecl":
		err = w.dec.Decode(&n.PreviousDecl)
	case "parentDeclContextId":
		err = w.dec.Decode(&n.ParentContext)
	case "referencedDecl":
		n.Ref = &declRef{}
		err = w.dec.Decode(n.Ref)
	case "referencedMemberDecl":
		err = w.dec.Decode(&n.MemberRef)
	case "type":
		err = w.dec.Decode(&n.Type)
	case "ctorType":
		err = w.dec.Decode(&n.CtorType)
	case "definitionData":
		var d struct {
			IsLambda bool `json:"isLambda"`
		}
		err = w.dec.Decode(&d)
		n.IsLambda = d.IsLambda
	default:
		var skip json.RawMessage
		err = w.dec.Decode(&skip)
	}
	return err
}
