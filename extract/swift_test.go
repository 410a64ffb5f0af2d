package extract

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/cos-dev/cos/graph"
)

// swiftEdges lists the edges of one type with the fixture's Sources/ cut.
func swiftEdges(t *testing.T, res indexResult, typ string) []string {
	t.Helper()
	var out []string
	for _, e := range edgesOfType(res.Payloads, typ) {
		out = append(out, strings.ReplaceAll(e, "Sources/", ""))
	}
	return out
}

// TestSwift_Fixture indexes a small SwiftPM package of three modules and
// asserts the exact calls, inherits_from, implements, imports, requires
// and contains edges of its Swift code: self./super. calls and unqualified
// calls (the type's own, inherited, an extension's in another file),
// super.init(…), T(…) and T.f() across modules, typed parameters, locals
// and properties (any P, T?), if let and optional chaining, subscripts
// (no call), declared returns, calls
// through protocol types to requirements and to a protocol extension's
// default, enum cases, and the methods of extensions belonging to their
// type.
func TestSwift_Fixture(t *testing.T) {
	root := copyTree(t, "testdata/swift")
	res := index(t, root, Options{}, nil)
	check := func(typ string, want []string) {
		t.Helper()
		checkEdgeSet(t, typ, swiftEdges(t, res, typ), want)
	}
	check(graph.EdgeCalls, []string{
		"App/main.swift -> App/main.swift::run",                       // top-level code calls from the file
		"App/main.swift -> Shapes/Circle.swift::Circle",               // an initializer of an imported module's class
		"App/main.swift::run -> *.forEach",                            // Array is outside the tree
		"App/main.swift::run -> *.unknown",                            // $0 is untyped
		"App/main.swift::run -> Geo/Point.swift::Point",               // a struct's initializer
		"App/main.swift::run -> Shapes/Circle.swift::Circle",          // let c = Circle(…)
		"App/main.swift::run -> Shapes/Circle.swift::Circle.grow",     // c.grow(…): typed by its initializer
		"App/main.swift::run -> Shapes/Helper.swift::Helper.help",     // let h: Helper
		"App/main.swift::run -> Shapes/Helper.swift::Helper.make",     // static call
		"App/main.swift::run -> Shapes/Shape.swift::Shape.area",       // parameter of a protocol type
		"App/main.swift::run -> Shapes/Shape.swift::Shape.describe",   // a protocol extension's default
		"App/main.swift::run -> Shapes/Solid.swift::Solid.volume",     // let s: Solid: the requirement
		"Geo/Point.swift::Point.copy -> Geo/Point.swift::Point",       // Point(…) inside Point
		"Geo/Point.swift::Point.norm -> *.sqrt",                       // not Point's: a stub
		"Geo/Point.swift::Point.origin -> Geo/Point.swift::Point",     //
		"Shapes/Base.swift::Base -> Shapes/Helper.swift::Helper.make", // property initialiser: the class
		"Shapes/Base.swift::Base.render -> Shapes/Helper.swift::Helper.help",
		"Shapes/Base.swift::Base.render -> Shapes/Shape.swift::Shape.describe",        // unqualified, through the protocol
		"Shapes/Base.swift::Registry.first -> *.area",                                 // shapes["x"]!: a subscript, no call; its element unknown
		"Shapes/Base.swift::Registry.first -> Shapes/Shape.swift::Shape.area",         // current: (any Shape)?
		"Shapes/Circle+Extra.swift::Circle.extra -> *.label",                          // Circle.Kind is in another file
		"Shapes/Circle+Extra.swift::Circle.extra -> Shapes/Circle.swift::Circle.grow", // extension → the type's method
		"Shapes/Circle.swift::Circle -> Geo/Point.swift::Point.copy",                  // initializer body: the class
		"Shapes/Circle.swift::Circle -> Shapes/Base.swift::Base",                      // super.init()
		"Shapes/Circle.swift::Circle.area -> Geo/Point.swift::Point.norm",             // a typed property
		"Shapes/Circle.swift::Circle.grow -> Geo/Point.swift::Point.copy",             // let p = Point.origin(): declared return
		"Shapes/Circle.swift::Circle.grow -> Geo/Point.swift::Point.norm",             // p.copy().norm()
		"Shapes/Circle.swift::Circle.grow -> Geo/Point.swift::Point.origin",           //
		"Shapes/Circle.swift::Circle.grow -> Shapes/Base.swift::Base.render",          // super.render()
		"Shapes/Circle.swift::Circle.grow -> Shapes/Circle+Extra.swift::Circle.extra", // if let o = other
		"Shapes/Circle.swift::Circle.grow -> Shapes/Circle.swift::Circle.Kind.label",  // an enum case
		"Shapes/Circle.swift::Circle.grow -> Shapes/Circle.swift::Circle.area",        // self.area(), area()
		"Shapes/Circle.swift::Circle.grow -> Shapes/Circle.swift::Circle.volume",      // other?.volume()
		"Shapes/Helper.swift::Helper.make -> Shapes/Helper.swift::Helper",
		"Shapes/Shape.swift::Shape.describe -> Shapes/Shape.swift::Shape.area", // in a protocol extension
	})
	check(graph.EdgeInheritsFrom, []string{
		"Shapes/Circle.swift::Circle -> Shapes/Base.swift::Base", // first entry, a class
		"Shapes/Solid.swift::Solid -> Shapes/Shape.swift::Shape", // protocol refinement
	})
	check(graph.EdgeImplements, []string{
		"Geo/Point.swift::Point -> Equatable",                      // outside the tree: a stub
		"Shapes/Base.swift::Base -> Shapes/Shape.swift::Shape",     // first entry, a protocol
		"Shapes/Circle.swift::Circle -> Shapes/Solid.swift::Solid", // later entries
	})
	check(graph.EdgeImports, []string{
		"App/main.swift -> Foundation",    // not in the tree: a stub
		"App/main.swift -> folder:Geo",    // Sources/<Module>
		"App/main.swift -> folder:Shapes", //
		"Geo/Point.swift -> Foundation",
		"Shapes/Circle.swift -> folder:Geo",
	})
	check(graph.EdgeRequires, []string{
		"Package.swift -> swiftpm:package:alamofire",
		"Package.swift -> swiftpm:package:localkit",
		"Package.swift -> swiftpm:package:swift-log",
		"Package.swift -> swiftpm:package:swift-snapshot-testing",
	})
	check(graph.EdgeDefines, []string{"Package.swift -> swiftpm:package:acme"})
	var contains []string
	for _, e := range swiftEdges(t, res, graph.EdgeContains) {
		if !strings.HasPrefix(e, "folder:") {
			contains = append(contains, e)
		}
	}
	checkEdgeSet(t, graph.EdgeContains, contains, []string{
		"App/main.swift -> App/main.swift::run",
		"Geo/Point.swift -> Geo/Point.swift::Point",
		"Geo/Point.swift::Point -> Geo/Point.swift::Point.copy",
		"Geo/Point.swift::Point -> Geo/Point.swift::Point.norm",
		"Geo/Point.swift::Point -> Geo/Point.swift::Point.origin",
		"Shapes/Base.swift -> Shapes/Base.swift::Base",
		"Shapes/Base.swift::Base -> Shapes/Base.swift::Base.area",
		"Shapes/Base.swift::Base -> Shapes/Base.swift::Base.render",
		"Shapes/Base.swift -> Shapes/Base.swift::Registry",
		"Shapes/Base.swift::Registry -> Shapes/Base.swift::Registry.first",
		"Shapes/Circle.swift -> Shapes/Circle.swift::Circle",
		"Shapes/Circle.swift::Circle -> Shapes/Circle+Extra.swift::Circle.extra", // an extension's method, another file
		"Shapes/Circle.swift::Circle -> Shapes/Circle.swift::Circle.Kind",
		"Shapes/Circle.swift::Circle -> Shapes/Circle.swift::Circle.area",
		"Shapes/Circle.swift::Circle -> Shapes/Circle.swift::Circle.grow",
		"Shapes/Circle.swift::Circle -> Shapes/Circle.swift::Circle.volume",
		"Shapes/Circle.swift::Circle.Kind -> Shapes/Circle.swift::Circle.Kind.label",
		"Shapes/Helper.swift -> Shapes/Helper.swift::Helper",
		"Shapes/Helper.swift::Helper -> Shapes/Helper.swift::Helper.help",
		"Shapes/Helper.swift::Helper -> Shapes/Helper.swift::Helper.make",
		"Shapes/Shape.swift -> Shapes/Shape.swift::Shape",
		"Shapes/Shape.swift::Shape -> Shapes/Shape.swift::Shape.area",     // a requirement
		"Shapes/Shape.swift::Shape -> Shapes/Shape.swift::Shape.describe", // a default in an extension
		"Shapes/Solid.swift -> Shapes/Solid.swift::Solid",
		"Shapes/Solid.swift::Solid -> Shapes/Solid.swift::Solid.volume",
	})
	// Versions of the requirements; node kinds and metadata.
	versions := map[string]string{}
	kinds := map[string]string{}
	for _, pl := range res.Payloads {
		for _, e := range pl.Edges {
			if e.Type == graph.EdgeRequires {
				versions[strings.TrimPrefix(e.Target, "swiftpm:package:")] = fmt.Sprint(e.Metadata["version"], " ", e.Metadata["scope"])
			}
		}
		for _, n := range pl.Nodes {
			if n.Kind == graph.KindClass {
				kinds[n.Label] = fmt.Sprint(n.Metadata["type_kind"], " ", n.Metadata["properties"])
			}
		}
		if len(pl.ParseErrors) > 0 {
			t.Errorf("%s: %v", pl.Path, pl.ParseErrors)
		}
	}
	for k, want := range map[string]string{
		"swift-log":              ">=1.5.0 <nil>",
		"alamofire":              ">=5.8.0 <nil>",
		"swift-snapshot-testing": "1.10.0..<2.0.0 <nil>",
		"localkit":               "<nil> local",
	} {
		if versions[k] != want {
			t.Errorf("requires %s: version and scope %q, want %q", k, versions[k], want)
		}
	}
	for k, want := range map[string]string{
		"Point":       "struct [x y]",
		"Shape":       "protocol [name]",
		"Base":        "class [helper name]",
		"Circle":      "class [center]",
		"Circle.Kind": "enum <nil>",
		"Helper":      "class <nil>",
		"Registry":    "class [shapes current]",
	} {
		if kinds[k] != want {
			t.Errorf("class %s: type_kind and properties %q, want %q", k, kinds[k], want)
		}
	}
}

// TestSwift_IncrementalNewModule checks that a file importing a module the
// tree does not have yet (an external stub) is re-extracted when the
// module's folder appears: its import and its calls (M.T(), through
// the module's name) then reach the tree.
func TestSwift_IncrementalNewModule(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "Sources/App/main.swift", []byte("import Later\n\nfunc run() {\n    Later.Clock().tick()\n}\n"))
	opts := Options{CacheDir: t.TempDir()}
	g := simGraph{}
	g.apply(index(t, root, opts, nil))
	writeFile(t, root, "Sources/Later/Clock.swift", []byte("public struct Clock {\n    public func tick() {}\n}\n"))
	res := index(t, root, opts, hashes(g))
	g.apply(res)
	if got, want := keys(res.Payloads), []string{"Sources/App/main.swift", "Sources/Later/Clock.swift"}; !equalStrings(got, want) {
		t.Errorf("emitted %v, want %v", got, want)
	}
	var got []string
	for _, e := range g["Sources/App/main.swift"].Edges {
		if e.Type == graph.EdgeImports || e.Type == graph.EdgeCalls {
			got = append(got, e.Type+" "+e.Target)
		}
	}
	sort.Strings(got)
	checkEdgeSet(t, "imports and calls", got, []string{
		"imports folder:Sources/Later",
		"calls code:function:Sources/Later/Clock.swift::Clock.tick",
		"calls code:class:Sources/Later/Clock.swift::Clock",
	})
	if d := dangling(g); len(d) > 0 {
		t.Errorf("dangling edges: %v", d)
	}
}
