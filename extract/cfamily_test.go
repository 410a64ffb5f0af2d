package extract

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/cos-dev/cos/graph"
)

// cfamilyEdges lists the calls, imports and inherits_from edges of every
// payload as "type source -> target", uid prefixes cut for reading.
func cfamilyEdges(payloads map[string]graph.FileExtracted) []string {
	short := func(uid string) string {
		for _, p := range []string{"code:function:", "code:class:", "code:file:", "code:external:"} {
			if s, ok := strings.CutPrefix(uid, p); ok {
				if p == "code:external:" {
					return "external:" + s
				}
				return s
			}
		}
		return uid
	}
	var out []string
	for _, pl := range payloads {
		for _, e := range pl.Edges {
			switch e.Type {
			case graph.EdgeCalls, graph.EdgeImports, graph.EdgeInheritsFrom:
				out = append(out, e.Type+" "+short(e.Source)+" -> "+short(e.Target))
			}
		}
	}
	sort.Strings(out)
	return out
}

// checkExactEdges asserts that got is exactly want (both sorted).
func checkExactEdges(t *testing.T, got, want []string) {
	t.Helper()
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		gs, ws := map[string]bool{}, map[string]bool{}
		for _, g := range got {
			gs[g] = true
		}
		for _, w := range want {
			ws[w] = true
			if !gs[w] {
				t.Errorf("missing edge %s", w)
			}
		}
		for _, g := range got {
			if !ws[g] {
				t.Errorf("unexpected edge %s", g)
			}
		}
	}
}

// nodesOf maps every node uid of the payloads to its node.
func nodesOf(payloads map[string]graph.FileExtracted) map[string]graph.Node {
	out := map[string]graph.Node{}
	for _, pl := range payloads {
		for _, n := range pl.Nodes {
			out[n.UID] = n
		}
	}
	return out
}

func TestC_Fixture(t *testing.T) {
	res := index(t, copyTree(t, filepath.Join("testdata", "c")), Options{CacheDir: t.TempDir()}, nil)
	for _, p := range []string{"src/main.c", "src/util.c", "include/util.h"} {
		if x := res.Payloads[p].Extractor; x != "c" {
			t.Errorf("%s: extractor %q, want c", p, x)
		}
	}
	checkExactEdges(t, cfamilyEdges(res.Payloads), []string{
		// #include "util.h" from src/ is found in the include folder;
		// <stdio.h> is outside the tree.
		"imports src/main.c -> include/util.h",
		"imports src/util.c -> include/util.h",
		// A static inline function of a header calls the definition, not
		// the prototype.
		"calls include/util.h::util_twice -> src/util.c::util_add",
		// A header's macro reaches the function its body calls.
		"calls src/util.c::util_sum3 -> src/util.c::util_add",
		// The file's own static helper, not the other file's.
		"calls src/util.c::util_sum3 -> src/util.c::helper",
		"calls src/main.c::main -> src/main.c::helper",
		"calls src/main.c::main -> src/util.c::util_sum3",
		"calls src/main.c::main -> include/util.h::util_twice",
		"calls src/main.c::main -> src/util.c::util_add",
		"calls src/main.c::main -> external:printf",
	})
	nodes := nodesOf(res.Payloads)
	for uid, kind := range map[string]string{
		"code:class:include/util.h::point":    "struct",
		"code:class:include/util.h::counter":  "struct",
		"code:class:include/util.h::callback": "typedef",
	} {
		n, ok := nodes[uid]
		if !ok {
			t.Errorf("no node %s", uid)
			continue
		}
		if n.Kind != graph.KindClass || n.Metadata["type_kind"] != kind {
			t.Errorf("%s: kind %s, type_kind %v; want class, %s", uid, n.Kind, n.Metadata["type_kind"], kind)
		}
	}
	if n := nodes["code:function:src/util.c::helper"]; n.Metadata["static"] != true {
		t.Errorf("src/util.c::helper: metadata %v, want static", n.Metadata)
	}
	if _, ok := nodes["code:function:include/util.h::util_add"]; ok {
		t.Errorf("a prototype made a node")
	}
}

func TestCPP_Fixture(t *testing.T) {
	res := index(t, copyTree(t, filepath.Join("testdata", "cpp")), Options{CacheDir: t.TempDir()}, nil)
	for p, want := range map[string]string{"src/shape.cc": "cpp", "src/registry.h": "c", "include/shape.h": "c"} {
		if x := res.Payloads[p].Extractor; x != want {
			t.Errorf("%s: extractor %q, want %s", p, x, want)
		}
	}
	checkExactEdges(t, cfamilyEdges(res.Payloads), []string{
		"imports src/shape.cc -> include/shape.h",
		"imports src/registry.h -> include/shape.h",
		"imports src/registry.cc -> src/registry.h",
		"imports src/main.cc -> src/registry.h",
		// class Square : public Shape
		"inherits_from include/shape.h::Square -> include/shape.h::Shape",
		// Unqualified call in an in-class method: the pure virtual node.
		"calls include/shape.h::Shape.Twice -> include/shape.h::Shape.Area",
		// A base initialiser: the base's constructor.
		"calls src/shape.cc::Square.Square -> src/shape.cc::Shape.Shape",
		// Base::m(), and an unqualified call of the class's own method.
		"calls src/shape.cc::Square.Both -> include/shape.h::Shape.Twice",
		"calls src/shape.cc::Square.Both -> src/shape.cc::Square.Area",
		// An unqualified call of an inherited method.
		"calls src/shape.cc::Square.Grow -> include/shape.h::Shape.Twice",
		// new T(…) in a member initialiser: T's constructor.
		"calls src/registry.cc::Registry.Registry -> src/shape.cc::Square.Square",
		// this->m()
		"calls src/registry.cc::Registry.Add -> src/registry.cc::Registry.Total",
		// A virtual call through a base pointer field: the base's method.
		"calls src/registry.cc::Registry.Total -> include/shape.h::Shape.Area",
		// A field's type, then a method's declared return type.
		"calls src/registry.cc::Registry.Total -> src/shape.cc::Square.Grow",
		"calls src/registry.cc::Registry.Total -> src/shape.cc::Square.Area",
		// T x(args); and new T(args): the constructor; Point origin{}
		// builds a struct without one: no edge.
		"calls src/registry.cc::Registry.Total -> src/shape.cc::Square.Square",
		// A local's inherited method, an auto local from new.
		"calls src/registry.cc::Registry.Total -> include/shape.h::Shape.Twice",
		"calls src/registry.cc::Registry.Total -> src/shape.cc::Square.Both",
		// A parameter's type.
		"calls src/registry.cc::Sum -> src/registry.cc::Registry.Total",
		// T x; (constructor declared in the class, defined elsewhere),
		// a local's method, a namespace-qualified function.
		"calls src/main.cc::main -> src/registry.cc::Registry.Registry",
		"calls src/main.cc::main -> src/registry.cc::Registry.Add",
		"calls src/main.cc::main -> src/registry.cc::Sum",
		// struct Derived : Base, both in a header; the override is
		// defined out of class in a .cc file.
		"imports src/drive.cc -> include/drive.h",
		"inherits_from include/drive.h::Derived -> include/drive.h::Base",
		// A virtual call through a base reference or pointer: the base's
		// method; through a Derived pointer: the out-of-class override.
		"calls src/drive.cc::drive -> include/drive.h::Base.run",
		"calls src/drive.cc::twice -> include/drive.h::Base.run",
		"calls src/drive.cc::twice -> src/drive.cc::Derived.run",
		// Recursion is a calls edge to itself.
		"calls src/drive.cc::fact -> src/drive.cc::fact",
	})
	// A method defined out of class is contained by its class, found
	// through the declarations when the class is in another file (a
	// header), and not by its file.
	var contains []string
	for _, pl := range res.Payloads {
		for _, e := range pl.Edges {
			_, member, _ := strings.Cut(e.Target, "::")
			if e.Type == graph.EdgeContains && strings.HasPrefix(e.Target, "code:function:") && strings.Contains(member, ".") {
				contains = append(contains, e.Source+" -> "+e.Target)
			}
		}
	}
	sort.Strings(contains)
	for _, want := range []string{
		"code:class:include/drive.h::Base -> code:function:include/drive.h::Base.run",
		"code:class:include/drive.h::Derived -> code:function:src/drive.cc::Derived.run",
		"code:class:include/shape.h::Shape -> code:function:include/shape.h::Shape.Area",
		"code:class:include/shape.h::Shape -> code:function:src/shape.cc::Shape.Shape",
		"code:class:include/shape.h::Square -> code:function:src/shape.cc::Square.Area",
		"code:class:src/registry.h::Registry -> code:function:src/registry.cc::Registry.Total",
	} {
		if !slices.Contains(contains, want) {
			t.Errorf("no contains edge %s in %v", want, contains)
		}
	}
	for _, e := range contains {
		if strings.HasPrefix(e, "code:file:") {
			t.Errorf("a method defined out of class is contained by its file: %s", e)
		}
	}
	nodes := nodesOf(res.Payloads)
	for uid, kind := range map[string]string{
		"code:class:include/shape.h::Shape":          graph.KindClass,
		"code:class:src/registry.h::Registry":        graph.KindClass,
		"code:function:include/shape.h::Shape.Area":  graph.KindMethod,
		"code:function:src/shape.cc::Shape.~Shape":   graph.KindMethod,
		"code:function:src/shape.cc::Square.Square":  graph.KindMethod,
		"code:function:include/shape.h::Shape.Twice": graph.KindMethod,
		"code:function:src/registry.cc::Sum":         graph.KindFunction,
	} {
		if n, ok := nodes[uid]; !ok || n.Kind != kind {
			t.Errorf("node %s: %v (found %v), want kind %s", uid, n.Kind, ok, kind)
		}
	}
	if n := nodes["code:class:include/shape.h::Shape"]; n.Metadata["namespace"] != "geo" {
		t.Errorf("Shape: namespace %v, want geo", n.Metadata["namespace"])
	}
	// CMakeLists.txt: a config node per project and target.
	for _, uid := range []string{"config:cmake:CMakeLists.txt#project/geo", "config:cmake:CMakeLists.txt#add_library/geo", "config:cmake:CMakeLists.txt#add_executable/geo_main"} {
		if n, ok := nodes[uid]; !ok || n.Kind != graph.KindConfig {
			t.Errorf("no config node %s", uid)
		}
	}
	if _, ok := nodes["code:function:include/shape.h::Square.Grow"]; ok {
		t.Errorf("an in-class declaration made a node")
	}
}

// TestCPP_DeepNamespacesAreBounded checks that namespaces nested past a
// 1,024-byte path (maxNamespacePath) are not read: a function 20,000
// namespaces deep makes no node, one a few levels deep does, and the file
// indexes without the n² namespace paths it cost before (1.5 GB).
func TestCPP_DeepNamespacesAreBounded(t *testing.T) {
	root := t.TempDir()
	deep := 20000
	var b strings.Builder
	b.WriteString("namespace top { namespace mid { void shallow() {} } }\n")
	for i := range deep {
		fmt.Fprintf(&b, "namespace n%d { ", i)
	}
	b.WriteString("void inner() {}")
	b.WriteString(strings.Repeat(" }", deep))
	b.WriteString("\n")
	writeFile(t, root, "deep.cpp", []byte(b.String()))
	res := index(t, root, Options{}, nil)
	got := map[string]bool{}
	for _, n := range res.Payloads["deep.cpp"].Nodes {
		got[n.UID] = true
	}
	if !got["code:function:deep.cpp::shallow"] {
		t.Errorf("no node for shallow, two namespaces deep; nodes %v", got)
	}
	if got["code:function:deep.cpp::inner"] {
		t.Error("inner, 20,000 namespaces deep, has a node: the nesting bound did not apply")
	}
}
