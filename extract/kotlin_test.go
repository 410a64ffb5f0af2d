package extract

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/cos-dev/cos/extract/lang"
	"github.com/cos-dev/cos/graph"
)

// ktEdges is edgesOfType with the Kotlin fixture's source root cut.
func ktEdges(payloads map[string]graph.FileExtracted, typ string) []string {
	var out []string
	for _, e := range edgesOfType(payloads, typ) {
		out = append(out, strings.ReplaceAll(e, "src/main/kotlin/com/acme/", ""))
	}
	sort.Strings(out)
	return out
}

// TestKotlin_Fixture indexes a small Gradle Kotlin project and asserts the
// exact calls, inherits_from, implements, imports and requires edges:
// calls across files and packages, this./super. and unqualified calls
// (own class, inherited, an extension's receiver, a top-level function of
// another file of the package), constructors T(…) (primary and secondary,
// a superclass's through the delegation specifier), typed receivers
// (locals declared or initialised with T(…), properties, parameters,
// constructor properties, inherited properties, chained declared
// returns), object and companion calls, nested objects, extension
// functions called on a typed receiver, calls through interface methods,
// imports (a class, an aliased object, a function, a star package).
func TestKotlin_Fixture(t *testing.T) {
	root := copyTree(t, "testdata/kotlin")
	res := index(t, root, Options{}, nil)
	p := res.Payloads
	checkEdgeSet(t, "calls", ktEdges(p, graph.EdgeCalls), []string{
		"app/App.kt::App -> shapes/Circle.kt::Circle",                       // property initialiser: from the class
		"app/App.kt::App.run -> *.forEach",                                  // listOf is outside the tree
		"app/App.kt::App.run -> *.listOf",                                   // neither the package's nor star-imported
		"app/App.kt::App.run -> *.toString",                                 // it: unknown
		"app/App.kt::App.run -> app/App.kt::helper",                         // top-level function of the file
		"app/App.kt::App.run -> ext/CircleExt.kt::Circle.label",             // imported extension: c's type's
		"app/App.kt::App.run -> ext/PointExt.kt::Point.label",               // (label of Point, another file)
		"app/App.kt::App.run -> geo/Point.kt::Point.Companion.origin",       // Point.origin(): the companion's
		"app/App.kt::App.run -> geo/Point.kt::Point.norm",                   // val p: Point; p.scale(2).norm()
		"app/App.kt::App.run -> geo/Point.kt::Point.scale",                  // extension function on a typed local
		"app/App.kt::App.run -> shapes/Base.kt::Base.describe",              // typed property, inherited method
		"app/App.kt::App.run -> shapes/Circle.kt::Circle",                   // Circle(1): the constructor
		"app/App.kt::App.run -> shapes/Circle.kt::Circle.area",              // val c = Circle(1); c.area()
		"app/App.kt::App.run -> shapes/Helper.kt::Registry.register",        // object through an import alias
		"app/App.kt::App.run -> shapes/Shape.kt::Named.name",                // parameter: an interface's super-interface method
		"app/App.kt::App.run -> shapes/Shape.kt::Shape.area",                // constructor property of an interface type
		"app/App.kt::Settings.load -> app/App.kt::Settings.Defaults.reset",  // nested object
		"app/App.kt::helper -> app/App.kt::Settings.load",                   // object call
		"app/Tool.kt::Tool.run -> app/App.kt::helper",                       // package function of another file
		"app/Tool.kt::Tool.run -> app/Ping.kt::ping",                        // (not a member of the bases)
		"geo/Geometry.kt -> geo/Point.kt::Point.Companion.origin",           // top-level property initialiser
		"geo/Geometry.kt::distance -> geo/Point.kt::Point.norm",             // a.scale(1).norm(): declared return of an extension
		"geo/Geometry.kt::distance -> geo/Point.kt::Point.scale",            // parameter typed Point
		"geo/Point.kt::Point.Companion.origin -> geo/Point.kt::Point",       // constructor
		"geo/Point.kt::Point.distanceTo -> geo/Geometry.kt::distance",       // same package, another file
		"geo/Point.kt::Point.distanceTo -> geo/Point.kt::Point.norm",        // the extension's receiver
		"geo/Point.kt::Point.scale -> geo/Point.kt::Point",                  // constructor
		"shapes/Base.kt::Base -> shapes/Helper.kt::Helper",                  // property initialiser
		"shapes/Base.kt::Base.name -> shapes/Base.kt::Base.describe",        // unqualified: own class
		"shapes/Base.kt::Base.name -> shapes/Helper.kt::Helper.help",        // property typed by its initialiser
		"shapes/Circle.kt::Circle -> geo/Point.kt::Point.Companion.origin",  // secondary constructor's this(…) arguments
		"shapes/Circle.kt::Circle -> shapes/Base.kt::Base",                  // Base(origin): the superclass's constructor
		"shapes/Circle.kt::Circle -> shapes/Helper.kt::Registry.register",   // init block
		"shapes/Circle.kt::Circle.area -> geo/Point.kt::Point.norm",         // inherited constructor property
		"shapes/Circle.kt::Circle.name -> geo/Geometry.kt::distance",        // imported function
		"shapes/Circle.kt::Circle.name -> geo/Point.kt::Point",              // Point(1, 2)
		"shapes/Circle.kt::Circle.name -> shapes/Base.kt::Base.describe",    // this.describe(): inherited
		"shapes/Circle.kt::Circle.name -> shapes/Base.kt::Base.name",        // super.name()
		"shapes/Circle.kt::Circle.name -> shapes/Circle.kt::Circle.area",    // unqualified: own class
		"shapes/Circle.kt::Circle.name -> ext/CircleExt.kt::Circle.label",   // unqualified imported extension of this
		"shapes/Helper.kt::Registry.register -> shapes/Shape.kt::Color.hex", // Color.RED.hex(): an enum entry
		"shapes/Helper.kt::Registry.register -> shapes/Shape.kt::Shape.area",
		"shapes/Shape.kt::Kind.Round -> shapes/Shape.kt::Kind", // object Round : Kind()
	})
	checkEdgeSet(t, "inherits_from", ktEdges(p, graph.EdgeInheritsFrom), []string{
		"shapes/Circle.kt::Circle -> shapes/Base.kt::Base",     // a constructor invocation: the superclass
		"shapes/Circle.kt::Solid -> shapes/Shape.kt::Shape",    // interface : interface
		"shapes/Shape.kt::Kind.Round -> shapes/Shape.kt::Kind", // object : sealed class
		"shapes/Shape.kt::Shape -> shapes/Shape.kt::Named",
	})
	checkEdgeSet(t, "implements", ktEdges(p, graph.EdgeImplements), []string{
		"app/Tool.kt::Tool -> java.lang.Runnable", // a bare type: an interface
		"shapes/Base.kt::Base -> shapes/Shape.kt::Shape",
		"shapes/Circle.kt::Circle -> shapes/Circle.kt::Solid",
	})
	checkEdgeSet(t, "imports", ktEdges(p, graph.EdgeImports), []string{
		"app/App.kt -> folder:geo",       // import com.acme.geo.*: the package's folder
		"app/App.kt -> ext/CircleExt.kt", // import com.acme.ext.label: every file declaring an extension label
		"app/App.kt -> ext/PointExt.kt",
		"app/App.kt -> shapes/Circle.kt",
		"ext/CircleExt.kt -> shapes/Circle.kt",
		"ext/PointExt.kt -> geo/Point.kt",
		"shapes/Circle.kt -> ext/CircleExt.kt",
		"shapes/Circle.kt -> ext/PointExt.kt",
		"app/App.kt -> shapes/Helper.kt", // import …Registry as Reg
		"app/App.kt -> shapes/Shape.kt",
		"shapes/Base.kt -> geo/Point.kt",
		"shapes/Circle.kt -> geo/Geometry.kt", // import com.acme.geo.distance: the file declaring it
		"shapes/Circle.kt -> geo/Point.kt",
	})
	checkEdgeSet(t, "requires", ktEdges(p, graph.EdgeRequires), []string{
		"build.gradle.kts -> maven:package:com.squareup.okio:okio",
		"build.gradle.kts -> maven:package:io.kotest:kotest-runner-junit5",
	})
	// Gradle's Kotlin scripts stay the manifest extractor's; other .kt
	// and .kts files are Kotlin.
	for path, want := range map[string]string{
		"build.gradle.kts":                    lang.ExtractorManifest,
		"settings.gradle.kts":                 lang.ExtractorManifest,
		"src/main/kotlin/com/acme/app/App.kt": lang.ExtractorKotlin,
	} {
		if got := p[path].Extractor; got != want {
			t.Errorf("%s: extractor %q, want %q", path, got, want)
		}
	}
	if got := extractorFor("scripts/release.main.kts"); got != lang.ExtractorKotlin {
		t.Errorf("release.main.kts: extractor %q, want kotlin", got)
	}
	// Declarations: kinds, type kinds and modifiers.
	nodes := map[string]string{}
	for _, pl := range p {
		for _, n := range pl.Nodes {
			if strings.HasPrefix(n.UID, "code:") && !strings.HasPrefix(n.UID, "code:file:") && !strings.HasPrefix(n.UID, "code:external:") {
				nodes[strings.ReplaceAll(strings.TrimPrefix(strings.TrimPrefix(n.UID, "code:function:"), "code:class:"), "src/main/kotlin/com/acme/", "")] =
					fmt.Sprint(n.Kind, " ", n.Metadata["type_kind"], " ", n.Metadata["modifiers"], " ", n.Metadata["receiver"], " ", n.Metadata["fields"])
			}
		}
	}
	for uid, want := range map[string]string{
		"geo/Point.kt::Point":                  "class class [data] <nil> [x y]",
		"geo/Point.kt::Point.Companion":        "class companion_object <nil> <nil> <nil>",
		"geo/Point.kt::Point.Companion.origin": "method <nil> <nil> <nil> <nil>",
		"geo/Point.kt::Point.scale":            "function <nil> <nil> Point <nil>",
		"geo/Geometry.kt::distance":            "function <nil> <nil> <nil> <nil>",
		"shapes/Shape.kt::Named":               "class interface <nil> <nil> <nil>",
		"shapes/Shape.kt::Kind":                "class class [sealed] <nil> <nil>",
		"shapes/Shape.kt::Kind.Round":          "class object <nil> <nil> <nil>",
		"shapes/Shape.kt::Color":               "class enum [enum] <nil> [rgb RED GREEN]",
		"shapes/Shape.kt::Marker":              "class annotation [annotation] <nil> <nil>",
		"shapes/Base.kt::Base":                 "class class [abstract] <nil> [origin helper]",
		"shapes/Circle.kt::Circle":             "class class <nil> <nil> [radius]",
		"app/App.kt::Settings.Defaults":        "class object <nil> <nil> <nil>",
		"ext/CircleExt.kt::Circle.label":       "function <nil> <nil> Circle <nil>",
	} {
		if got := nodes[uid]; got != want {
			t.Errorf("node %s: %q, want %q", uid, got, want)
		}
	}
	if len(nodes) != 39 {
		t.Errorf("%d declaration nodes, want 39:\n%v", len(nodes), nodes)
	}
	for path, pl := range p {
		if len(pl.ParseErrors) > 0 {
			t.Errorf("%s: parse errors %v", path, pl.ParseErrors)
		}
	}
}

// TestKotlin_DeepNestingIsBounded: a nested class's name holds every
// enclosing one, so classes nest at most 64 levels (the deeper ones have
// no node); nested lambdas and object literals are walked without a
// bound on their depth but at a cost linear in it.
func TestKotlin_DeepNestingIsBounded(t *testing.T) {
	root := t.TempDir()
	deep := 5000
	writeFile(t, root, "Nest.kt", []byte("class A {\n"+strings.Repeat("class B {\n", deep)+strings.Repeat("}\n", deep)+"}\n"))
	writeFile(t, root, "Lambdas.kt", []byte("fun f() {\n"+strings.Repeat("run {\n", deep)+"g()\n"+strings.Repeat("}\n", deep)+"}\n"))
	res := index(t, root, Options{}, nil)
	classes := 0
	for _, n := range res.Payloads["Nest.kt"].Nodes {
		if n.Kind == graph.KindClass {
			classes++
		}
	}
	if classes != 64 {
		t.Errorf("%d class nodes for %d nested classes, want the 64 outermost", classes, deep+1)
	}
	calls := 0
	for _, e := range res.Payloads["Lambdas.kt"].Edges {
		if e.Type == graph.EdgeCalls {
			calls++
		}
	}
	if calls != 2 { // run → *.run, g → *.g
		t.Errorf("%d calls edges from nested lambdas, want 2", calls)
	}
}
