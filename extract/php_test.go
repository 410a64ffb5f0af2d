package extract

import (
	"reflect"
	"testing"

	"github.com/cos-dev/cos/graph"
)

// TestPHP_Fixture indexes testdata/php (composer.json psr-4 "App\\" →
// src/, an HTML page with <?php blocks) and asserts the exact edges of
// every kind the PHP extractor makes.
func TestPHP_Fixture(t *testing.T) {
	res := index(t, copyTree(t, "testdata/php"), Options{CacheDir: t.TempDir()}, nil)
	pl := res.Payloads
	if d := dangling(pl); len(d) > 0 {
		t.Errorf("dangling edges: %v", d)
	}

	// The page: include of a literal path (the missing one makes no
	// edge), calls of a global function and of a method on a local
	// assigned from new App\Service() (no __construct: no edge to one).
	checkFileEdges(t, pl, "index.php", graph.EdgeImports, "index.php -> lib/helpers.php")
	checkFileEdges(t, pl, "index.php", graph.EdgeCalls,
		"index.php -> lib/helpers.php::greet",
		"index.php -> src/Service.php::Service",
		"index.php -> src/Service.php::Service.run",
	)

	// Constructors: $this in a constructor, new static() as a call of
	// the class and its constructor.
	checkFileEdges(t, pl, "src/Models/Model.php", graph.EdgeCalls,
		"src/Models/Model.php::Model.__construct -> src/Models/Model.php::Model.boot",
		"src/Models/Model.php::Model.create -> src/Models/Model.php::Model",
		"src/Models/Model.php::Model.create -> src/Models/Model.php::Model.__construct",
	)

	// extends, use Trait, implements (outside the tree: a stub); use
	// imports mapped by psr-4; parent::, self::, static::, $this->m()
	// through a trait, a typed property, a promoted constructor
	// parameter typed with an interface.
	checkFileEdges(t, pl, "src/Models/User.php", graph.EdgeInheritsFrom,
		"src/Models/User.php::User -> src/Models/Model.php::Model",
		"src/Models/User.php::User -> src/Models/HasName.php::HasName",
	)
	checkFileEdges(t, pl, "src/Models/User.php", graph.EdgeImplements, "src/Models/User.php::User -> external:JsonSerializable")
	checkFileEdges(t, pl, "src/Models/User.php", graph.EdgeImports,
		"src/Models/User.php -> src/Contracts/Repository.php",
		"src/Models/User.php -> src/Logger.php",
	)
	checkFileEdges(t, pl, "src/Models/User.php", graph.EdgeCalls,
		"src/Models/User.php::User.__construct -> src/Models/Model.php::Model.__construct",
		"src/Models/User.php::User.__construct -> src/Logger.php::Logger",
		"src/Models/User.php::User.jsonSerialize -> src/Logger.php::Logger.info",
		"src/Models/User.php::User.jsonSerialize -> src/Models/HasName.php::HasName.name",
		"src/Models/User.php::User.jsonSerialize -> src/Models/User.php::User.label",
		"src/Models/User.php::User.label -> src/Models/User.php::User.format",
		"src/Models/User.php::User.format -> external:strtoupper",
		"src/Models/User.php::User.reload -> src/Contracts/Repository.php::Repository.find",
	)

	// Typed parameters, $u = new User(…), a declared return type (?User),
	// Cls::m() through a use alias to an inherited static method, an
	// unknown receiver (stub), a class outside the tree (stub), use
	// function, (new Logger())->info().
	checkFileEdges(t, pl, "src/Service.php", graph.EdgeImports,
		"src/Service.php -> src/Models/User.php",
		"src/Service.php -> src/Models/Model.php",
		"src/Service.php -> src/Contracts/Repository.php",
	)
	checkFileEdges(t, pl, "src/Service.php", graph.EdgeCalls,
		"src/Service.php::Service.run -> src/Models/User.php::User",
		"src/Service.php::Service.run -> src/Models/User.php::User.__construct",
		"src/Service.php::Service.run -> src/Models/Model.php::Model.save",
		"src/Service.php::Service.run -> src/Models/User.php::User.reload",
		"src/Service.php::Service.run -> src/Models/HasName.php::HasName.name",
		"src/Service.php::Service.run -> src/Contracts/Repository.php::Repository.find",
		"src/Service.php::Service.run -> src/Models/User.php::User.label",
		"src/Service.php::Service.run -> src/Models/Model.php::Model.create",
		"src/Service.php::Service.run -> external:*.anything",
		"src/Service.php::Service.run -> external:Monolog\\Handler\\StreamHandler",
		"src/Service.php::Service.run -> src/Logger.php::format_line",
		"src/Service.php::Service.run -> src/Logger.php::Logger",
		"src/Service.php::Service.run -> src/Logger.php::Logger.info",
	)
	checkFileEdges(t, pl, "src/Models/Status.php", graph.EdgeCalls, "src/Models/Status.php::Status.label -> src/Models/Status.php::Status.describe")
	// A function declared inside if (!function_exists(…)) { … } (twice:
	// one node).
	checkFileEdges(t, pl, "lib/helpers.php", graph.EdgeCalls,
		"lib/helpers.php -> external:function_exists",
		"lib/helpers.php::greet -> lib/helpers.php::shout",
		"lib/helpers.php::shout -> external:strtoupper",
	)
	checkFileEdges(t, pl, "src/Logger.php", graph.EdgeCalls, "src/Logger.php::Logger.info -> src/Logger.php::format_line")

	// Declarations: the namespace node, kinds, fields.
	checkFileEdges(t, pl, "src/Models/User.php", graph.EdgeDefines, "src/Models/User.php -> module:App\\Models")
	user := nodeOf(t, pl, "src/Models/User.php", "code:class:src/Models/User.php::User")
	if got, want := user.Metadata["fields"], []any{"count", "logger", "repo"}; !reflect.DeepEqual(toAny(got), want) {
		t.Errorf("User fields = %v, want %v", got, want)
	}
	for _, c := range []struct{ file, uid, kind string }{
		{"src/Contracts/Repository.php", "code:class:src/Contracts/Repository.php::Repository", "interface"},
		{"src/Models/HasName.php", "code:class:src/Models/HasName.php::HasName", "trait"},
		{"src/Models/Status.php", "code:class:src/Models/Status.php::Status", "enum"},
	} {
		if n := nodeOf(t, pl, c.file, c.uid); n.Metadata["type_kind"] != c.kind {
			t.Errorf("%s type_kind = %v, want %s", c.uid, n.Metadata["type_kind"], c.kind)
		}
	}
	if n := nodeOf(t, pl, "src/Models/User.php", "code:function:src/Models/User.php::User.__construct"); n.Kind != graph.KindMethod {
		t.Errorf("constructor kind = %s", n.Kind)
	}

	// composer.json: composer:package: nodes, platform requirements left out.
	checkFileEdges(t, pl, "composer.json", graph.EdgeRequires,
		"composer.json -> composer:package:monolog/monolog",
		"composer.json -> composer:package:phpunit/phpunit",
	)
}

// toAny turns a []string (fresh) or []any (decoded) into []any.
func toAny(v any) []any {
	switch x := v.(type) {
	case []string:
		out := make([]any, len(x))
		for i, s := range x {
			out[i] = s
		}
		return out
	case []any:
		return x
	}
	return nil
}

// TestPHP_NamespaceFolders: without a composer.json psr-4 map, a use
// import finds the file its namespace names as folders; a global
// function is declared in the global namespace.
func TestPHP_NamespaceFolders(t *testing.T) {
	pl := indexJS(t, map[string]string{
		"Lib/Util.php": "<?php\nnamespace Lib;\nclass Util { public static function run() {} }\n",
		"app.php":      "<?php\nuse Lib\\Util;\nuse Lib\\Gone;\nUtil::run();\n\\Lib\\Util::run();\n",
	})
	checkFileEdges(t, pl, "app.php", graph.EdgeImports, "app.php -> Lib/Util.php")
	checkFileEdges(t, pl, "app.php", graph.EdgeCalls, "app.php -> Lib/Util.php::Util.run")
}

// TestPHP_Incremental: a method moving from a class to its base
// re-extracts the caller in another namespace, and a use import of a
// file that appears later gets its edge.
func TestPHP_Incremental(t *testing.T) {
	root, cache := t.TempDir(), t.TempDir()
	writeFile(t, root, "Lib/Base.php", []byte("<?php\nnamespace Lib;\nclass Base { public function run() {} }\n"))
	writeFile(t, root, "Lib/Child.php", []byte("<?php\nnamespace Lib;\nclass Child extends Base { public function run() {} }\n"))
	writeFile(t, root, "app.php", []byte("<?php\nuse Lib\\Child;\nuse Lib\\Later;\nfunction go(Child $c) { $c->run(); }\n"))
	first := index(t, root, Options{CacheDir: cache}, nil)
	checkFileEdges(t, first.Payloads, "app.php", graph.EdgeCalls, "app.php::go -> Lib/Child.php::Child.run")
	checkFileEdges(t, first.Payloads, "app.php", graph.EdgeImports, "app.php -> Lib/Child.php")

	writeFile(t, root, "Lib/Child.php", []byte("<?php\nnamespace Lib;\nclass Child extends Base {}\n"))
	writeFile(t, root, "Lib/Later.php", []byte("<?php\nnamespace Lib;\nclass Later {}\n"))
	second := index(t, root, Options{CacheDir: cache}, hashes(first.Payloads))
	if _, ok := second.Payloads["app.php"]; !ok {
		t.Fatalf("app.php was not re-extracted (emitted: %v)", sortedPaths(second.Payloads))
	}
	checkFileEdges(t, second.Payloads, "app.php", graph.EdgeCalls, "app.php::go -> Lib/Base.php::Base.run")
	checkFileEdges(t, second.Payloads, "app.php", graph.EdgeImports, "app.php -> Lib/Child.php", "app.php -> Lib/Later.php")
}

// TestPHP_ComposerChangeReextracts: the psr-4 map of composer.json says
// which file a use import names, so a composer.json edit extracts the
// PHP files again and their imports follow the new map; an unchanged
// composer.json extracts nothing.
func TestPHP_ComposerChangeReextracts(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "composer.json", []byte(`{"autoload": {"psr-4": {"App\\": "src/"}}}`))
	writeFile(t, root, "src/Repo.php", []byte("<?php\nnamespace App;\nclass Repo {}\n"))
	writeFile(t, root, "lib/Repo.php", []byte("<?php\nnamespace App;\nclass Repo {}\n"))
	writeFile(t, root, "app/main.php", []byte("<?php\nuse App\\Repo;\n$r = new Repo();\n"))
	opts := Options{CacheDir: t.TempDir()}
	g := simGraph{}
	g.apply(index(t, root, opts, nil))
	imports := func() []string {
		var out []string
		for _, e := range g["app/main.php"].Edges {
			if e.Type == graph.EdgeImports {
				out = append(out, e.Target)
			}
		}
		return out
	}
	if got := imports(); !equalStrings(got, []string{"code:file:src/Repo.php"}) {
		t.Fatalf("imports before: %v", got)
	}
	if res := index(t, root, opts, hashes(g)); len(res.Payloads) != 0 {
		t.Fatalf("no change emitted %v", keys(res.Payloads))
	}
	writeFile(t, root, "composer.json", []byte(`{"autoload": {"psr-4": {"App\\": "lib/"}}}`))
	g.apply(index(t, root, opts, hashes(g)))
	if got := imports(); !equalStrings(got, []string{"code:file:lib/Repo.php"}) {
		t.Errorf("imports after composer.json maps App\\ to lib/: %v", got)
	}
}
