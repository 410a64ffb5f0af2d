package scip_test

import (
	"slices"
	"testing"

	scippb "github.com/sourcegraph/scip/bindings/go/scip"

	"github.com/cos-dev/cos/extract/lang"
	"github.com/cos-dev/cos/extract/scip"
	"github.com/cos-dev/cos/graph"
)

// csharpMain has a receiver the C# extractor cannot type (r, a var from
// a method of a class it does not know) and an unqualified call the
// index below leaves out (Save() in Load).
const csharpMain = `using System.Collections.Generic;

namespace App;

class Repo
{
    public void Save() { }
    public void Load() { Save(); }
}

class Service
{
    public void Run()
    {
        var r = Factory.Make();
        r.Save();
        r.Load();
        var n = new Repo();
    }
}
`

// csharpIndex is what scip-dotnet would write for csharpMain (namespace
// descriptors App/, the constructor .ctor), less the occurrence of Save
// on line 8 and of Factory.Make on line 15.
func csharpIndex(root string) *scippb.Index {
	const a = "scip-dotnet nuget . . App/"
	return index("scip-dotnet", "0.2.12", root, &scippb.Document{RelativePath: "App/Main.cs", Language: "csharp", Occurrences: []*scippb.Occurrence{
		occ("scip-dotnet nuget System.Collections 8.0.0 System/Collections/Generic/", 0, []int32{0, 26, 33}),
		occ(a+"Repo#", def, []int32{4, 6, 10}, 4, 0, 8, 1),
		occ(a+"Repo#Save().", def, []int32{6, 16, 20}, 6, 4, 26),
		occ(a+"Repo#Load().", def, []int32{7, 16, 20}, 7, 4, 34),
		occ(a+"Service#", def, []int32{10, 6, 13}, 10, 0, 19, 1),
		occ(a+"Service#Run().", def, []int32{12, 16, 19}, 12, 4, 18, 5),
		occ("local 0", def, []int32{14, 12, 13}),
		occ("local 0", 0, []int32{15, 8, 9}),
		occ(a+"Repo#Save().", 0, []int32{15, 10, 14}),
		occ("local 0", 0, []int32{16, 8, 9}),
		occ(a+"Repo#Load().", 0, []int32{16, 10, 14}),
		occ("local 1", def, []int32{17, 12, 13}),
		occ(a+"Repo#`.ctor`().", 0, []int32{17, 20, 24}),
	}})
}

// TestMerge_CSharp merges a scip-dotnet index onto the C# extractor's
// payload: the index's calls replace the inferred ones of the file (the
// untyped receiver's stubs resolved, the constructor call kept on the
// class), an unqualified call the index misses keeps its inferred edge.
func TestMerge_CSharp(t *testing.T) {
	root := writeTree(t, map[string]string{"App/Main.cs": csharpMain})
	ps := extractTree(t, root)
	const (
		path = "App/Main.cs"
		run  = "code:function:App/Main.cs::Service.Run"
		save = "code:function:App/Main.cs::Repo.Save"
		load = "code:function:App/Main.cs::Repo.Load"
		repo = "code:class:App/Main.cs::Repo"
	)
	p := payloadOf(t, ps, path)
	if p.Extractor != lang.ExtractorCSharp {
		t.Fatalf("%s extractor = %s, want csharp", path, p.Extractor)
	}
	before := callEdges(ps, true)
	for _, e := range []string{
		"calls " + run + " -> code:external:*.Save @16",
		"calls " + run + " -> code:external:*.Load @17",
		"calls " + run + " -> " + repo + " @18",
		"calls " + load + " -> " + save + " @8",
	} {
		if !slices.Contains(before, e) {
			t.Fatalf("the extractor has no %q (edges %v)", e, before)
		}
	}
	if !scip.Mergeable(lang.ExtractorCSharp) {
		t.Fatal("C# payloads are not mergeable")
	}

	res := scip.Merge(root, ps, scip.Place(csharpIndex(root), root))
	if !slices.Equal(res.Precise, []string{path}) || len(res.Skipped) != 0 {
		t.Fatalf("Precise = %v, Skipped = %v", res.Precise, res.Skipped)
	}
	p = payloadOf(t, ps, path)
	want := []string{
		"calls " + load + " -> " + save + " @8",
		"calls " + run + " -> " + repo + " @18", // new Repo(): the .ctor reference
		"calls " + run + " -> code:external:*.Make @15",
		"calls " + run + " -> " + load + " @17",
		"calls " + run + " -> " + save + " @16",
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
	if got := nodeOf(t, p, save).Metadata[graph.MetaSCIPSymbol]; got != "scip-dotnet nuget . . App/Repo#Save()." {
		t.Errorf("scip_symbol of Repo.Save = %v", got)
	}
	fm := nodeOf(t, p, "code:file:"+path).Metadata
	if fm[graph.MetaExtraction] != graph.ExtractionPrecise || fm[graph.MetaIndexer] != "scip-dotnet 0.2.12" {
		t.Errorf("file metadata = %v, want extraction precise by scip-dotnet 0.2.12", fm)
	}
}
