package extract

import (
	"testing"

	"github.com/cos-dev/cos/graph"
)

// TestRuby_Fixture indexes testdata/ruby and asserts the exact edges of
// every kind the Ruby extractor makes.
func TestRuby_Fixture(t *testing.T) {
	res := index(t, copyTree(t, "testdata/ruby"), Options{CacheDir: t.TempDir()}, nil)
	pl := res.Payloads
	if d := dangling(pl); len(d) > 0 {
		t.Errorf("dangling edges: %v", d)
	}
	const user = "lib/shop/user.rb::Shop::Models::User"

	// require_relative (the missing file makes no edge), require through
	// lib/ (json is outside the tree: no edge).
	checkFileEdges(t, pl, "lib/shop.rb", graph.EdgeImports, "lib/shop.rb -> lib/shop/base.rb", "lib/shop.rb -> lib/shop/user.rb")
	checkFileEdges(t, pl, "lib/shop/user.rb", graph.EdgeImports, "lib/shop/user.rb -> lib/shop/base.rb", "lib/shop/user.rb -> lib/shop/repo.rb")

	// < Base read inside module Shop::Models finds Shop::Base; include
	// and extend are inherits_from too (Comparable is outside: a stub).
	checkFileEdges(t, pl, "lib/shop/user.rb", graph.EdgeInheritsFrom,
		user+" -> lib/shop/base.rb::Shop::Base",
		user+" -> lib/shop/base.rb::Shop::Findable",
		user+" -> external:Comparable",
	)

	// super, Repo.new (no initialize: the class only), self.m and a bare
	// m (one edge), a bare call found in an included module, @repo typed
	// from Repo.new in initialize, a local from User.new, a singleton
	// call Cls.m up the superclass, Shop::Repo.new.store, unknown
	// receivers (stubs), Kernel#puts (nothing).
	checkFileEdges(t, pl, "lib/shop/user.rb", graph.EdgeCalls,
		user+".initialize -> lib/shop/base.rb::Shop::Base.initialize",
		user+".initialize -> lib/shop/repo.rb::Shop::Repo",
		user+".save -> "+user+".check",
		user+".save -> lib/shop/base.rb::Shop::Findable.find_all",
		user+".save -> lib/shop/repo.rb::Shop::Repo.store",
		user+".save -> lib/shop/base.rb::Shop::Base.save",
		user+".build -> "+user,
		user+".build -> "+user+".initialize",
		user+".build -> "+user+".save",
		user+".build -> lib/shop/base.rb::Shop::Base.create",
		user+".build -> lib/shop/repo.rb::Shop::Repo",
		user+".build -> lib/shop/repo.rb::Shop::Repo.store",
		user+".build -> external:*.unknown",
		user+".build -> external:*.thing",
	)
	// A bare new in a singleton method constructs the class itself.
	checkFileEdges(t, pl, "lib/shop/base.rb", graph.EdgeCalls,
		"lib/shop/base.rb::Shop::Base.save -> lib/shop/base.rb::Shop::Base.validate",
		"lib/shop/base.rb::Shop::Base.create -> lib/shop/base.rb::Shop::Base",
		"lib/shop/base.rb::Shop::Base.create -> lib/shop/base.rb::Shop::Base.initialize",
	)
	// Top level: a function, singleton methods by their full constant
	// (def self.m and class << self).
	checkFileEdges(t, pl, "Rakefile", graph.EdgeImports, "Rakefile -> lib/shop.rb")
	checkFileEdges(t, pl, "Rakefile", graph.EdgeCalls,
		"Rakefile -> Rakefile::helper",
		"Rakefile -> "+user+".build",
		"Rakefile -> "+user+".registry",
	)

	// Nodes: modules, fields, singleton methods.
	if n := nodeOf(t, pl, "lib/shop/base.rb", "code:class:lib/shop/base.rb::Shop::Findable"); n.Metadata["type_kind"] != "module" {
		t.Errorf("Findable type_kind = %v, want module", n.Metadata["type_kind"])
	}
	if got := toAny(nodeOf(t, pl, "lib/shop/user.rb", "code:class:"+user).Metadata["fields"]); len(got) != 3 || got[0] != "age" || got[1] != "name" || got[2] != "repo" {
		t.Errorf("User fields = %v, want [age name repo]", got)
	}
	for _, m := range []string{"build", "registry"} {
		if n := nodeOf(t, pl, "lib/shop/user.rb", "code:function:"+user+"."+m); n.Kind != graph.KindMethod || n.Metadata["singleton"] != true {
			t.Errorf("%s: kind %s singleton %v", m, n.Kind, n.Metadata["singleton"])
		}
	}

	// Gemfile and gemspec: gem:package: nodes.
	checkFileEdges(t, pl, "Gemfile", graph.EdgeRequires, "Gemfile -> gem:package:rack", "Gemfile -> gem:package:json", "Gemfile -> gem:package:rspec")
	checkFileEdges(t, pl, "shop.gemspec", graph.EdgeRequires, "shop.gemspec -> gem:package:rack", "shop.gemspec -> gem:package:logger", "shop.gemspec -> gem:package:rake")
	for _, e := range pl["Gemfile"].Edges {
		if e.Target == "gem:package:rspec" && e.Metadata["scope"] != "development" {
			t.Errorf("rspec scope = %v, want development", e.Metadata["scope"])
		}
	}
}
