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

// TestRuby_Incremental: a method moving from a class to its superclass
// in another file re-extracts the caller.
func TestRuby_Incremental(t *testing.T) {
	root, cache := t.TempDir(), t.TempDir()
	writeFile(t, root, "lib/base.rb", []byte("class Base\n  def run; end\nend\n"))
	writeFile(t, root, "lib/child.rb", []byte("class Child < Base\n  def run; end\nend\n"))
	writeFile(t, root, "app.rb", []byte("def go\n  c = Child.new\n  c.run\nend\n"))
	first := index(t, root, Options{CacheDir: cache}, nil)
	checkFileEdges(t, first.Payloads, "app.rb", graph.EdgeCalls, "app.rb::go -> lib/child.rb::Child", "app.rb::go -> lib/child.rb::Child.run")

	writeFile(t, root, "lib/child.rb", []byte("class Child < Base\nend\n"))
	second := index(t, root, Options{CacheDir: cache}, hashes(first.Payloads))
	if _, ok := second.Payloads["app.rb"]; !ok {
		t.Fatalf("app.rb was not re-extracted (emitted: %v)", sortedPaths(second.Payloads))
	}
	checkFileEdges(t, second.Payloads, "app.rb", graph.EdgeCalls, "app.rb::go -> lib/child.rb::Child", "app.rb::go -> lib/base.rb::Base.run")
}

// TestRuby_RequireAppears: a require of a file that appears later gets
// its edge on the next index.
func TestRuby_RequireAppears(t *testing.T) {
	root, cache := t.TempDir(), t.TempDir()
	writeFile(t, root, "app.rb", []byte("require 'shop/cart'\nrequire_relative 'util'\n"))
	first := index(t, root, Options{CacheDir: cache}, nil)
	checkFileEdges(t, first.Payloads, "app.rb", graph.EdgeImports)

	writeFile(t, root, "lib/shop/cart.rb", []byte("class Cart; end\n"))
	writeFile(t, root, "util.rb", []byte("def util; end\n"))
	second := index(t, root, Options{CacheDir: cache}, hashes(first.Payloads))
	checkFileEdges(t, second.Payloads, "app.rb", graph.EdgeImports, "app.rb -> lib/shop/cart.rb", "app.rb -> util.rb")
}
