package extract

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/cos-dev/cos/graph"
)

// scalaEdges lists the edges of one type as edgesOfType does, with the
// Scala fixture's source root cut too.
func scalaEdges(p map[string]graph.FileExtracted, typ string) []string {
	var out []string
	for _, e := range edgesOfType(p, typ) {
		out = append(out, strings.ReplaceAll(e, "src/main/scala/com/acme/", ""))
	}
	sort.Strings(out)
	return out
}

// TestScala_Fixture indexes a small sbt project and asserts the exact
// calls, inherits_from, implements, imports and requires edges: calls
// across files and packages, this.m(), super.m(), unqualified calls (the
// class's own method, a top-level def, a member imported from an object),
// typed receivers (a local with a declared type, a local from new T(…) or
// T(…), a typed field, a field from new T(…), a parameter, a class
// parameter, a typed pattern), Obj.f() on an object, chained calls
// through declared return types, new T(…) and the companion apply T(…) to
// the class node, the superclass's constructor from extends B(…), calls
// through a trait's method, extends/with (class → inherits_from, traits →
// implements, a trait's parent → inherits_from), imports resolved to the
// declaring file (by package, not by file name), a chained package clause
// and a package block seeing their enclosing package, a wildcard import,
// and build.sbt module ids.
func TestScala_Fixture(t *testing.T) {
	root := copyTree(t, "testdata/scala")
	res := index(t, root, Options{}, nil)
	p := res.Payloads
	checkEdgeSet(t, "calls", scalaEdges(p, graph.EdgeCalls), []string{
		"extra/Extra.scala::Extra -> model/Shape.scala::Base",                     // extends Base(2), through import model._
		"extra/Extra.scala::Extra.describe -> model/Shape.scala::Named.title",     // val s: Shape; s.title() (inherited trait method)
		"extra/Extra.scala::Extra.describe -> model/Shape.scala::Registry.lookup", // object through a wildcard import
		"model/Shape.scala::Circle -> model/Shape.scala::Base",                    // extends Base(1)
		"model/Shape.scala::Circle.describe -> model/Shape.scala::Base.describe",  // super.describe()
		"model/Shape.scala::Circle.describe -> model/Shape.scala::Circle.label",   // this.label()
		"model/Shape.scala::Circle.label -> model/Shape.scala::Circle.title",      // unqualified: own method
		"model/Shape.scala::Circle.unit -> model/Shape.scala::Circle",             // companion apply Circle(1.0)
		"model/Shape.scala::Registry.lookup -> model/Shape.scala::Circle.unit",    // Obj.f()
		"service/Renderer.scala::Canvas.draw -> model/Shape.scala::Shape.area",    // parameter of a trait type
		"service/Renderer.scala::Renderer -> service/Renderer.scala::Canvas",      // field initialisers: the class
		"service/Renderer.scala::Renderer.render -> *.filter",                     // receiver of unknown type: a stub
		"service/Renderer.scala::Renderer.render -> *.map",
		"service/Renderer.scala::Renderer.render -> model/Shape.scala::Base.ping",            // d = Circle(3.0); d.ping() (inherited)
		"service/Renderer.scala::Renderer.render -> model/Shape.scala::Circle",               // new Circle(2.0), Circle(3.0)
		"service/Renderer.scala::Renderer.render -> model/Shape.scala::Circle.area",          // val e: Circle
		"service/Renderer.scala::Renderer.render -> model/Shape.scala::Circle.describe",      // d.describe()
		"service/Renderer.scala::Renderer.render -> model/Shape.scala::Circle.label",         // c.label(), Circle.unit().label(), case k: Circle
		"service/Renderer.scala::Renderer.render -> model/Shape.scala::Circle.unit",          // Circle.unit()
		"service/Renderer.scala::Renderer.render -> model/Shape.scala::Registry.lookup",      // Reg.lookup (renamed import)
		"service/Renderer.scala::Renderer.render -> model/Shape.scala::Shape.area",           // shape.area(), Reg.lookup(1).area()
		"service/Renderer.scala::Renderer.render -> service/Renderer.scala::Canvas.draw",     // class parameter, typed field, field from new
		"service/Renderer.scala::Renderer.render -> service/Renderer.scala::Renderer.finish", // this.finish(), finish()
		"service/Renderer.scala::Renderer.render -> util/Log.scala::Log.info",                // class parameter log: Log
		"service/Renderer.scala::Renderer.render -> util/Log.scala::Log.warn",                // Log.warn(…), imported warn(…)
		"service/Renderer.scala::Renderer.render -> util/Log.scala::topLevel",                // imported top-level def
		"util/Log.scala::topLevel -> util/Log.scala::helper",
	})
	checkEdgeSet(t, "inherits_from", scalaEdges(p, graph.EdgeInheritsFrom), []string{
		"extra/Extra.scala::Extra -> model/Shape.scala::Base",
		"model/Shape.scala::Circle -> model/Shape.scala::Base",
		"model/Shape.scala::Shape -> model/Shape.scala::Named", // trait extends trait
	})
	checkEdgeSet(t, "implements", scalaEdges(p, graph.EdgeImplements), []string{
		"model/Shape.scala::Circle -> model/Shape.scala::Named",   // with Named
		"model/Shape.scala::Circle -> model/Shape.scala::Shape",   // with Shape
		"model/Shape.scala::Circle -> scala.Serializable",         // a standard trait: its stub
		"model/Shape.scala::Registry -> model/Shape.scala::Named", // object extends a trait of its file
	})
	checkEdgeSet(t, "imports", scalaEdges(p, graph.EdgeImports), []string{
		"extra/Extra.scala -> folder:model",           // import com.acme.model._: the package's folder
		"service/Renderer.scala -> model/Shape.scala", // Circle, Shape and Registry live in Shape.scala
		"service/Renderer.scala -> util/Log.scala",    // Log, Log.warn, topLevel
	})
	checkEdgeSet(t, "requires", scalaEdges(p, graph.EdgeRequires), []string{
		"build.sbt -> maven:package:com.google.guava:guava",
		"build.sbt -> maven:package:io.circe:circe-core",
		"build.sbt -> maven:package:org.scala-js:scalajs-dom",
		"build.sbt -> maven:package:org.scalatest:scalatest",
		"build.sbt -> maven:package:org.typelevel:cats-core",
	})
	versions := map[string]string{}
	for _, pl := range p {
		for _, e := range pl.Edges {
			if e.Type == graph.EdgeRequires {
				versions[strings.TrimPrefix(e.Target, "maven:package:")] = fmt.Sprint(e.Metadata["version"], " ", e.Metadata["scope"])
			}
		}
	}
	for k, want := range map[string]string{
		"org.typelevel:cats-core":  "2.10.0 <nil>",
		"io.circe:circe-core":      "<nil> <nil>", // the version is a val
		"org.scalatest:scalatest":  "3.2.17 test",
		"org.scala-js:scalajs-dom": "2.8.0 provided",
	} {
		if versions[k] != want {
			t.Errorf("requires %s: version and scope %q, want %q", k, versions[k], want)
		}
	}
	// Declarations: kinds, companions, givens, top-level defs, fields.
	nodes := map[string]graph.Node{}
	for _, pl := range p {
		for _, n := range pl.Nodes {
			nodes[strings.ReplaceAll(n.UID, "src/main/scala/com/acme/", "")] = n
		}
	}
	for uid, want := range map[string]string{
		"code:class:model/Shape.scala::Named":                "class trait",
		"code:class:model/Shape.scala::Circle":               "class case_class",
		"code:class:model/Shape.scala::Registry":             "class object",
		"code:class:model/Shape.scala::Color":                "class enum",
		"code:class:util/Log.scala::Log":                     "class class",
		"code:function:util/Log.scala::topLevel":             "function <nil>",
		"code:function:service/Renderer.scala::Renderer.ord": "method <nil>",
	} {
		n, ok := nodes[uid]
		if !ok {
			t.Errorf("no node %s", uid)
			continue
		}
		if got := fmt.Sprint(n.Kind, " ", n.Metadata["type_kind"]); got != want {
			t.Errorf("%s: kind and type_kind %q, want %q", uid, got, want)
		}
	}
	if n := nodes["code:class:model/Shape.scala::Circle"]; n.Metadata["companion"] != true {
		t.Errorf("Circle: companion %v, want true (class and object Circle are one node)", n.Metadata["companion"])
	}
	if n := nodes["code:function:service/Renderer.scala::Renderer.ord"]; n.Metadata["given"] != true {
		t.Errorf("Renderer.ord: given %v, want true", n.Metadata["given"])
	}
	if got := fmt.Sprint(nodes["code:class:service/Renderer.scala::Renderer"].Metadata["fields"]); got != "[canvas log helper spare count]" {
		t.Errorf("Renderer fields %s, want [canvas log helper spare count]", got)
	}
	if got := fmt.Sprint(nodes["code:class:model/Shape.scala::Color"].Metadata["fields"]); got != "[Red Green]" {
		t.Errorf("Color fields %s, want [Red Green]", got)
	}
}
