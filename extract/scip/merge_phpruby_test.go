package scip_test

import (
	"slices"
	"testing"

	scippb "github.com/sourcegraph/scip/bindings/go/scip"

	"github.com/cos-dev/cos/extract/lang"
	"github.com/cos-dev/cos/extract/scip"
	"github.com/cos-dev/cos/graph"
)

// phpMain has a receiver the PHP extractor cannot type ($r, an untyped
// parameter), a use line naming a class, and a call the index below
// leaves out ($this->save() in load).
const phpMain = `<?php
namespace App;

use App\Repo;

class Repo {
    public function save() {}
    public function load() { $this->save(); }
}

class Service {
    public function run($r) {
        $r->save();
        $x = new Repo();
        $x->load();
    }
}
`

func TestMerge_PHP(t *testing.T) {
	const path = "src/Main.php"
	root := writeTree(t, map[string]string{path: phpMain})
	ps := extractTree(t, root)
	if p := payloadOf(t, ps, path); p.Extractor != lang.ExtractorPHP {
		t.Fatalf("%s extractor = %s, want php", path, p.Extractor)
	}
	const a = "scip-php composer acme/app 1.0 App/"
	idx := index("scip-php", "0.0.2", root, &scippb.Document{RelativePath: path, Language: "php", Occurrences: []*scippb.Occurrence{
		occ(a+"Repo#", 0, []int32{3, 8, 12}),
		occ(a+"Repo#", def, []int32{5, 6, 10}, 5, 0, 8, 1),
		occ(a+"Repo#save().", def, []int32{6, 20, 24}, 6, 4, 29),
		occ(a+"Repo#load().", def, []int32{7, 20, 24}, 7, 4, 46),
		occ(a+"Service#", def, []int32{10, 6, 13}, 10, 0, 16, 1),
		occ(a+"Service#run().", def, []int32{11, 20, 23}, 11, 4, 15, 5),
		occ(a+"Repo#save().", 0, []int32{12, 12, 16}),
		occ(a+"Repo#", 0, []int32{13, 17, 21}),
		occ(a+"Repo#load().", 0, []int32{14, 12, 16}),
	}})
	res := scip.Merge(root, ps, scip.Place(idx, root))
	if !slices.Equal(res.Precise, []string{path}) || len(res.Skipped) != 0 {
		t.Fatalf("Precise = %v, Skipped = %v", res.Precise, res.Skipped)
	}
	const f = "code:function:" + path + "::"
	want := []string{
		"calls " + f + "Repo.load -> " + f + "Repo.save @8",
		"calls " + f + "Service.run -> code:class:" + path + "::Repo @14",
		"calls " + f + "Service.run -> " + f + "Repo.load @15",
		"calls " + f + "Service.run -> " + f + "Repo.save @13",
	}
	if got := callEdges(ps, true); !slices.Equal(got, want) {
		t.Errorf("edges = %v, want %v", got, want)
	}
	p := payloadOf(t, ps, path)
	for _, e := range p.Edges {
		if e.Type == graph.EdgeReferences && e.Line == 4 {
			t.Errorf("the use line made a references edge %s -> %s", e.Source, e.Target)
		}
	}
	if m := nodeOf(t, p, "code:file:"+path).Metadata; m[graph.MetaExtraction] != graph.ExtractionPrecise || m[graph.MetaIndexer] != "scip-php 0.0.2" {
		t.Errorf("file metadata = %v", m)
	}
	if res.Calls != 3 || res.InferredSites != 1 {
		t.Errorf("Calls, InferredSites = %d, %d; want 3, 1", res.Calls, res.InferredSites)
	}
}

// rubyMain calls without parentheses, as most Ruby does; the bare save in
// load is left out of the index below.
const rubyMain = `class Repo
  def save
  end
  def load
    save
  end
end

class Service
  def run(r)
    r.save
    x = Repo.new
    x.load
    Repo
  end
end
`

func TestMerge_Ruby(t *testing.T) {
	const path = "lib/repo.rb"
	root := writeTree(t, map[string]string{path: rubyMain})
	ps := extractTree(t, root)
	if p := payloadOf(t, ps, path); p.Extractor != lang.ExtractorRuby {
		t.Fatalf("%s extractor = %s, want ruby", path, p.Extractor)
	}
	const a = "scip-ruby gem shop 0.1 "
	idx := index("scip-ruby", "0.3.0", root, &scippb.Document{RelativePath: path, Language: "ruby", Occurrences: []*scippb.Occurrence{
		occ(a+"Repo#", def, []int32{0, 6, 10}, 0, 0, 6, 3),
		occ(a+"Repo#save().", def, []int32{1, 6, 10}, 1, 2, 2, 5),
		occ(a+"Repo#load().", def, []int32{3, 6, 10}, 3, 2, 5, 5),
		occ(a+"Service#", def, []int32{8, 6, 13}, 8, 0, 15, 3),
		occ(a+"Service#run().", def, []int32{9, 6, 9}, 9, 2, 14, 5),
		occ(a+"Repo#save().", 0, []int32{10, 6, 10}),
		occ(a+"Repo#", 0, []int32{11, 8, 12}),
		occ(a+"Repo#load().", 0, []int32{12, 6, 10}),
		occ(a+"Repo#", 0, []int32{13, 4, 8}),
	}})
	res := scip.Merge(root, ps, scip.Place(idx, root))
	if !slices.Equal(res.Precise, []string{path}) || len(res.Skipped) != 0 {
		t.Fatalf("Precise = %v, Skipped = %v", res.Precise, res.Skipped)
	}
	const f = "code:function:" + path + "::"
	want := []string{
		"calls " + f + "Repo.load -> " + f + "Repo.save @5",
		"calls " + f + "Service.run -> code:class:" + path + "::Repo @12",
		"calls " + f + "Service.run -> " + f + "Repo.load @13",
		"calls " + f + "Service.run -> " + f + "Repo.save @11",
		// The bare constant on line 14 is a reference, not a call.
		"references " + f + "Service.run -> code:class:" + path + "::Repo @14",
	}
	if got := callEdges(ps, true); !slices.Equal(got, want) {
		t.Errorf("edges = %v, want %v", got, want)
	}
	if res.Calls != 3 || res.InferredSites != 1 {
		t.Errorf("Calls, InferredSites = %d, %d; want 3, 1", res.Calls, res.InferredSites)
	}
}
