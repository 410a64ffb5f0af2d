package scip_test

import (
	"slices"
	"testing"

	scippb "github.com/sourcegraph/scip/bindings/go/scip"

	"github.com/cos-dev/cos/extract/lang"
	"github.com/cos-dev/cos/extract/scip"
	"github.com/cos-dev/cos/graph"
)

// scalaMain has a receiver the Scala extractor cannot type (r, a val
// from a def of an object it does not know).
const scalaMain = `package app

class Repo {
  def save(): Unit = ()
}

object Service {
  def run(): Unit = {
    val r = Factory.make()
    r.save()
  }
}
`

// scalaIndex is what scip-java (semanticdb) would write for scalaMain,
// less the occurrence of Factory.make.
func scalaIndex(root string) *scippb.Index {
	const a = "semanticdb maven maven/app/app 0.1 app/"
	return index("scip-java", "0.10.4", root, &scippb.Document{RelativePath: "app/Main.scala", Language: "scala", Occurrences: []*scippb.Occurrence{
		occ(a+"Repo#", def, []int32{2, 6, 10}, 2, 0, 4, 1),
		occ(a+"Repo#save().", def, []int32{3, 6, 10}, 3, 2, 24),
		occ(a+"Service.", def, []int32{6, 7, 14}, 6, 0, 11, 1),
		occ(a+"Service.run().", def, []int32{7, 6, 9}, 7, 2, 10, 3),
		occ("local 0", def, []int32{8, 8, 9}),
		occ("local 0", 0, []int32{9, 4, 5}),
		occ(a+"Repo#save().", 0, []int32{9, 6, 10}),
	}})
}

// TestMerge_Scala: a SCIP index of Scala files (scip-java's semanticdb
// symbols, objects as terms) makes their calls precise on cos's uids.
func TestMerge_Scala(t *testing.T) {
	root := writeTree(t, map[string]string{"app/Main.scala": scalaMain})
	ps := extractTree(t, root)
	const (
		path = "app/Main.scala"
		run  = "code:function:app/Main.scala::Service.run"
		save = "code:function:app/Main.scala::Repo.save"
	)
	if p := payloadOf(t, ps, path); p.Extractor != lang.ExtractorScala {
		t.Fatalf("%s extractor = %s, want scala", path, p.Extractor)
	}
	if before := callEdges(ps, true); !slices.Contains(before, "calls "+run+" -> code:external:*.save @10") {
		t.Fatalf("the extractor has no stub call of save (edges %v)", before)
	}
	res := scip.Merge(root, ps, scip.Place(scalaIndex(root), root))
	if !slices.Equal(res.Precise, []string{path}) || len(res.Skipped) != 0 {
		t.Fatalf("Precise = %v, Skipped = %v", res.Precise, res.Skipped)
	}
	want := []string{
		"calls " + run + " -> code:external:*.make @9",
		"calls " + run + " -> " + save + " @10",
	}
	if got := callEdges(ps, true); !slices.Equal(got, want) {
		t.Errorf("edges = %v, want %v", got, want)
	}
	p := payloadOf(t, ps, path)
	if got := nodeOf(t, p, save).Metadata[graph.MetaSCIPSymbol]; got != "semanticdb maven maven/app/app 0.1 app/Repo#save()." {
		t.Errorf("scip_symbol of Repo.save = %v", got)
	}
	if got := nodeOf(t, p, run).Metadata[graph.MetaSCIPSymbol]; got != "semanticdb maven maven/app/app 0.1 app/Service.run()." {
		t.Errorf("scip_symbol of Service.run = %v", got)
	}
}
