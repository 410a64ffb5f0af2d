package scip_test

import (
	"slices"
	"testing"

	scippb "github.com/sourcegraph/scip/bindings/go/scip"

	"github.com/cos-dev/cos/extract/lang"
	"github.com/cos-dev/cos/extract/scip"
	"github.com/cos-dev/cos/graph"
)

// javaMain has a receiver the Java extractor cannot type (r, a var from
// a method of a class it does not know) and an unqualified call the
// index below leaves out (save() in load).
const javaMain = `package app;

import java.util.List;

class Repo {
    void save() {}
    void load() { save(); }
}

class Service {
    void run() {
        var r = Factory.make();
        r.save();
        r.load();
    }
}
`

// javaIndex is what scip-java would write for javaMain, less the
// occurrence of save on line 7 and of Factory.make on line 12.
func javaIndex(root string) *scippb.Index {
	const a = "semanticdb maven maven/app/app 0.1 app/"
	return index("scip-java", "0.10.4", root, &scippb.Document{RelativePath: "app/Main.java", Language: "java", Occurrences: []*scippb.Occurrence{
		occ("semanticdb maven jdk 17 java/util/List#", 0, []int32{2, 17, 21}),
		occ(a+"Repo#", def, []int32{4, 6, 10}, 4, 0, 7, 1),
		occ(a+"Repo#save().", def, []int32{5, 9, 13}, 5, 4, 18),
		occ(a+"Repo#load().", def, []int32{6, 9, 13}, 6, 4, 27),
		occ(a+"Service#", def, []int32{9, 6, 13}, 9, 0, 15, 1),
		occ(a+"Service#run().", def, []int32{10, 9, 12}, 10, 4, 14, 5),
		occ("local 0", def, []int32{11, 12, 13}),
		occ("local 0", 0, []int32{12, 8, 9}),
		occ(a+"Repo#save().", 0, []int32{12, 10, 14}),
		occ("local 0", 0, []int32{13, 8, 9}),
		occ(a+"Repo#load().", 0, []int32{13, 10, 14}),
	}})
}

func TestMerge_Java(t *testing.T) {
	root := writeTree(t, map[string]string{"app/Main.java": javaMain})
	ps := extractTree(t, root)
	const (
		path = "app/Main.java"
		run  = "code:function:app/Main.java::Service.run"
		save = "code:function:app/Main.java::Repo.save"
		load = "code:function:app/Main.java::Repo.load"
	)
	p := payloadOf(t, ps, path)
	if p.Extractor != lang.ExtractorJava {
		t.Fatalf("%s extractor = %s, want java", path, p.Extractor)
	}
	var uids []string
	for _, n := range p.Nodes {
		uids = append(uids, n.UID)
	}
	before := callEdges(ps, true)
	for _, e := range []string{
		"calls " + run + " -> code:external:*.save @13",
		"calls " + run + " -> code:external:*.load @14",
		"calls " + load + " -> " + save + " @7",
	} {
		if !slices.Contains(before, e) {
			t.Fatalf("the extractor has no %q (edges %v)", e, before)
		}
	}

	res := scip.Merge(root, ps, scip.Place(javaIndex(root), root))
	if !slices.Equal(res.Precise, []string{path}) || len(res.Skipped) != 0 {
		t.Fatalf("Precise = %v, Skipped = %v", res.Precise, res.Skipped)
	}
	p = payloadOf(t, ps, path)
	want := []string{
		"calls " + load + " -> " + save + " @7",
		"calls " + run + " -> code:external:*.make @12",
		"calls " + run + " -> " + load + " @14",
		"calls " + run + " -> " + save + " @13",
	}
	if got := callEdges(ps, true); !slices.Equal(got, want) {
		t.Errorf("edges = %v, want %v", got, want)
	}
	for _, e := range p.Edges {
		if e.Type != graph.EdgeCalls {
			continue
		}
		inferred := e.Metadata[graph.MetaInferred] == true
		if want := e.Source == load; inferred != want {
			t.Errorf("%s -> %s @%d inferred = %v, want %v", e.Source, e.Target, e.Line, inferred, want)
		}
	}
	// cos's nodes stay, with their uids; the stubs the index resolved go.
	var after []string
	for _, n := range p.Nodes {
		after = append(after, n.UID)
	}
	for _, u := range uids {
		if !slices.Contains(after, u) && u != "code:external:*.save" && u != "code:external:*.load" {
			t.Errorf("node %s is gone", u)
		}
	}
	if len(after) != len(uids)-2 {
		t.Errorf("nodes after = %v, before %v", after, uids)
	}
	if got := nodeOf(t, p, save).Metadata[graph.MetaSCIPSymbol]; got != "semanticdb maven maven/app/app 0.1 app/Repo#save()." {
		t.Errorf("scip_symbol of Repo.save = %v", got)
	}
	fm := nodeOf(t, p, "code:file:"+path).Metadata
	if fm[graph.MetaExtraction] != graph.ExtractionPrecise || fm[graph.MetaIndexer] != "scip-java 0.10.4" {
		t.Errorf("file metadata = %v, want extraction precise by scip-java 0.10.4", fm)
	}
	if got := nodeOf(t, p, save).Metadata[graph.MetaInferredSites]; got != 1 {
		t.Errorf("inferred_sites of Repo.save = %v, want 1", got)
	}
	if res.Calls != 2 || res.InferredSites != 1 || res.Unresolved != 1 {
		t.Errorf("Calls, InferredSites, Unresolved = %d, %d, %d; want 2, 1, 1", res.Calls, res.InferredSites, res.Unresolved)
	}
}

const cUtil = `#include <stdio.h>
static int add(int a, int b) { return a + b; } // add(1, 2)

int twice(int x) {
    return add(x, x);
}

int thrice(int x) {
    return add(twice(x), x);
}
`

// A C file: scip-clang's symbols (a disambiguator in each method
// descriptor), UTF-8 offsets; the call of twice on line 9 is left out.
func TestMerge_C(t *testing.T) {
	root := writeTree(t, map[string]string{"lib/u.c": cUtil})
	ps := extractTree(t, root)
	if p := payloadOf(t, ps, "lib/u.c"); p.Extractor != lang.ExtractorC {
		t.Fatalf("lib/u.c extractor = %s, want c", p.Extractor)
	}
	const c = "cxx . . $ "
	idx := index("scip-clang", "0.3.2", root, &scippb.Document{
		RelativePath: "lib/u.c", Language: "c", PositionEncoding: scippb.PositionEncoding_UTF8CodeUnitOffsetFromLineStart,
		Occurrences: []*scippb.Occurrence{
			occ(c+"add(9b289cee16747614).", def, []int32{1, 11, 14}, 1, 0, 46),
			occ(c+"twice(49f6e7a06ebc5aa8).", def, []int32{3, 4, 9}, 3, 0, 5, 1),
			occ(c+"add(9b289cee16747614).", 0, []int32{4, 11, 14}),
			occ(c+"thrice(8b3e2dd2aa6c7f4b).", def, []int32{7, 4, 10}, 7, 0, 9, 1),
			occ(c+"add(9b289cee16747614).", 0, []int32{8, 11, 14}),
		},
	})
	res := scip.Merge(root, ps, scip.Place(idx, root))
	if !slices.Equal(res.Precise, []string{"lib/u.c"}) {
		t.Fatalf("Precise = %v, Skipped = %v", res.Precise, res.Skipped)
	}
	const f = "code:function:lib/u.c::"
	want := []string{
		"calls " + f + "thrice -> " + f + "add @9",
		"calls " + f + "thrice -> " + f + "twice @9",
		"calls " + f + "twice -> " + f + "add @5",
	}
	if got := callEdges(ps, true); !slices.Equal(got, want) {
		t.Errorf("edges = %v, want %v", got, want)
	}
	p := payloadOf(t, ps, "lib/u.c")
	for _, e := range p.Edges {
		if e.Type != graph.EdgeCalls {
			continue
		}
		if inferred, want := e.Metadata[graph.MetaInferred] == true, e.Target == f+"twice"; inferred != want {
			t.Errorf("%s -> %s inferred = %v, want %v", e.Source, e.Target, inferred, want)
		}
	}
	if m := nodeOf(t, p, "code:file:lib/u.c").Metadata; m[graph.MetaExtraction] != graph.ExtractionPrecise {
		t.Errorf("file metadata = %v", m)
	}
	if res.Calls != 2 || res.InferredSites != 1 {
		t.Errorf("Calls, InferredSites = %d, %d; want 2, 1", res.Calls, res.InferredSites)
	}
}

// A recursive call the index resolves is a calls edge from the function
// to itself; the function's name in its own declaration is not an edge.
func TestMerge_KeepsRecursiveCalls(t *testing.T) {
	root := writeTree(t, map[string]string{"lib/f.c": "int fact(int n) { return n ? n * fact(n - 1) : 1; }\n"})
	ps := extractTree(t, root)
	const c = "cxx . . $ "
	idx := index("scip-clang", "0.3.2", root, &scippb.Document{
		RelativePath: "lib/f.c", Language: "c", PositionEncoding: scippb.PositionEncoding_UTF8CodeUnitOffsetFromLineStart,
		Occurrences: []*scippb.Occurrence{
			occ(c+"fact(9b289cee16747614).", def, []int32{0, 4, 8}, 0, 0, 51),
			occ(c+"fact(9b289cee16747614).", 0, []int32{0, 33, 37}),
		},
	})
	res := scip.Merge(root, ps, scip.Place(idx, root))
	if !slices.Equal(res.Precise, []string{"lib/f.c"}) {
		t.Fatalf("Precise = %v, Skipped = %v", res.Precise, res.Skipped)
	}
	const fact = "code:function:lib/f.c::fact"
	if got, want := callEdges(ps, true), []string{"calls " + fact + " -> " + fact + " @1"}; !slices.Equal(got, want) {
		t.Errorf("edges = %v, want %v", got, want)
	}
	if res.Calls != 1 {
		t.Errorf("Calls = %d, want 1", res.Calls)
	}
}
