package extract

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/cos-dev/cos/graph"
)

// csharpEdges lists the edges of one type as "source -> target", the
// fixture's src/ folder and the uid prefixes of code nodes cut.
func csharpEdges(payloads map[string]graph.FileExtracted, typ string) []string {
	var out []string
	for _, e := range edgesOfType(payloads, typ) {
		out = append(out, strings.ReplaceAll(e, "src/", ""))
	}
	sort.Strings(out)
	return out
}

// csharpCallLines lists the calls made from one file with their lines,
// "line: source -> target", so that each inference of a call site is
// asserted on its own even when two sites reach one target.
func csharpCallLines(payloads map[string]graph.FileExtracted, file string) []string {
	var out []string
	for _, e := range payloads[file].Edges {
		if e.Type != graph.EdgeCalls {
			continue
		}
		short := func(uid string) string {
			for _, p := range []string{"code:function:", "code:class:", "code:external:", "src/"} {
				uid = strings.TrimPrefix(uid, p)
			}
			return uid
		}
		out = append(out, fmt.Sprintf("%d: %s -> %s", e.Line, short(e.Source), short(e.Target)))
	}
	sort.Strings(out)
	return out
}

// TestCSharp_Fixture indexes a small two-project solution and asserts the
// exact calls, inherits_from, implements, imports and requires edges:
// cross-file calls, this and base calls, typed locals (var x = new T(),
// T x = new()), fields, properties and parameters, static calls
// T.M() and through using static, namespace-qualified calls, chained
// returns, constructors (new T(), new(), : base()), calls through an
// interface, as/?. and pattern variables, partial classes split over two
// files, and a local function (its call is dropped).
func TestCSharp_Fixture(t *testing.T) {
	root := copyTree(t, "testdata/csharp")
	res := index(t, root, Options{}, nil)
	p := res.Payloads
	checkEdgeSet(t, "calls", csharpEdges(p, graph.EdgeCalls), []string{
		"App/Program.cs::Program -> Lib/Logger.cs::Registry", // field initialiser new(): from the class
		"App/Program.cs::Program.Main -> App/Program.cs::Program",
		"App/Program.cs::Program.Main -> App/Program.cs::Program.Run",
		"App/Program.cs::Program.Main -> Lib/Logger.cs::Logger",
		"App/Program.cs::Program.Main -> Lib/Logger.cs::Logger.Create",
		"App/Program.cs::Program.Main -> Lib/Logger.cs::Logger.Write",
		"App/Program.cs::Program.Main -> Lib/Shapes.cs::Circle",
		"App/Program.cs::Program.Main -> Lib/Shapes.cs::Circle.Unit",
		"App/Program.cs::Program.Main -> Lib/Shapes.cs::IShape.Area",
		"App/Program.cs::Program.Main -> Lib/Shapes.cs::Shape.Area",
		"App/Program.cs::Program.Main -> Lib/Shapes.cs::Shape.Describe",
		"App/Program.cs::Program.Run -> *.WriteLine", // System is outside the tree
		"App/Program.cs::Program.Run -> App/Program.cs::Program.Entries",
		"App/Program.cs::Program.Run -> Lib/Logger.cs::Logger.Create",
		"App/Program.cs::Program.Run -> Lib/Logger.cs::Logger.Write",
		"App/Program.cs::Program.Run -> Lib/Logger.cs::Registry.Add",
		"App/Program.cs::Program.Run -> Lib/Registry.Part.cs::Registry.Count", // the other file of a partial class
		"App/Program.cs::Program.Run -> Lib/Shapes.cs::Circle.CompareTo",
		"App/Program.cs::Program.Run -> Lib/Shapes.cs::Circle.Label",
		"App/Program.cs::Program.Run -> Lib/Shapes.cs::IShape.Area",
		"Lib/Logger.cs::Logger.Create -> Lib/Logger.cs::Logger",
		"Lib/Shapes.cs::Circle -> Lib/Shapes.cs::Circle.Validate",   // constructor body: the class
		"Lib/Shapes.cs::Circle -> Lib/Shapes.cs::Shape",             // : base()
		"Lib/Shapes.cs::Circle.Label -> Lib/Shapes.cs::Shape.Label", // base.Label()
		"Lib/Shapes.cs::Circle.Unit -> Lib/Shapes.cs::Circle",
		"Lib/Shapes.cs::Shape -> Lib/Logger.cs::Logger",
		"Lib/Shapes.cs::Shape.Describe -> Lib/Logger.cs::Logger.Write", // typed field
		"Lib/Shapes.cs::Shape.Describe -> Lib/Shapes.cs::Shape.Area",   // this.Area()
	})
	checkEdgeSet(t, "Program.cs calls", csharpCallLines(p, "src/App/Program.cs"), []string{
		"10: App/Program.cs::Program -> Lib/Logger.cs::Registry",
		"15: App/Program.cs::Program.Main -> Lib/Shapes.cs::Circle",
		"16: App/Program.cs::Program.Main -> Lib/Shapes.cs::Shape.Describe", // var c = new Circle(…)
		"17: App/Program.cs::Program.Main -> Lib/Shapes.cs::Circle.Unit",    // static
		"18: App/Program.cs::Program.Main -> Lib/Shapes.cs::Shape.Area",     // typed local
		"20: App/Program.cs::Program.Main -> Lib/Shapes.cs::IShape.Area",    // interface-typed local
		"21: App/Program.cs::Program.Main -> Lib/Logger.cs::Logger",         // Logger l = new()
		"22: App/Program.cs::Program.Main -> Lib/Logger.cs::Logger.Write",
		"23: App/Program.cs::Program.Main -> Lib/Logger.cs::Logger.Create",
		"25: App/Program.cs::Program.Main -> App/Program.cs::Program",
		"26: App/Program.cs::Program.Main -> App/Program.cs::Program.Run",
		"33: App/Program.cs::Program.Run -> Lib/Shapes.cs::IShape.Area",  // parameter
		"34: App/Program.cs::Program.Run -> Lib/Logger.cs::Registry.Add", // field
		"35: App/Program.cs::Program.Run -> Lib/Registry.Part.cs::Registry.Count",
		"36: App/Program.cs::Program.Run -> Lib/Logger.cs::Logger.Write",     // property
		"39: App/Program.cs::Program.Run -> Lib/Logger.cs::Logger.Create",    // namespace-qualified
		"40: App/Program.cs::Program.Run -> Lib/Shapes.cs::Circle.Label",     // (x as T)?.M()
		"41: App/Program.cs::Program.Run -> Lib/Shapes.cs::Circle.CompareTo", // pattern variable
		"42: App/Program.cs::Program.Run -> *.WriteLine",
		"43: App/Program.cs::Program.Run -> App/Program.cs::Program.Entries",
	})
	checkEdgeSet(t, "inherits_from", csharpEdges(p, graph.EdgeInheritsFrom), []string{
		"Lib/Shapes.cs::Circle -> Lib/Shapes.cs::Shape",
		"Lib/Shapes.cs::ISolid -> Lib/Shapes.cs::IShape", // an interface's bases
	})
	checkEdgeSet(t, "implements", csharpEdges(p, graph.EdgeImplements), []string{
		"Lib/Shapes.cs::Circle -> IComparable",
		"Lib/Shapes.cs::Point -> IEquatable", // a struct's bases
		"Lib/Shapes.cs::Shape -> Lib/Shapes.cs::IShape",
	})
	checkEdgeSet(t, "imports", csharpEdges(p, graph.EdgeImports), []string{
		"App/Program.cs -> folder:Lib", // Demo.Lib: three files of Lib/
	})
	checkEdgeSet(t, "requires", csharpEdges(p, graph.EdgeRequires), []string{
		"App/App.csproj -> Lib/Lib.csproj",
		"App/App.csproj -> nuget:package:Newtonsoft.Json",
		"App/App.csproj -> nuget:package:Serilog",
		"Lib/Lib.csproj -> nuget:package:Microsoft.Extensions.Logging",
	})
	// Declarations: namespaces are scopes, so the uid of a type carries no
	// namespace; record parameters, fields and properties are listed.
	kinds := map[string]string{}
	for _, pl := range p {
		for _, n := range pl.Nodes {
			desc := n.Kind
			for _, k := range []string{"type_kind", "member_kind", "fields"} {
				if v, ok := n.Metadata[k]; ok {
					desc += fmt.Sprintf(" %s=%v", k, v)
				}
			}
			kinds[strings.ReplaceAll(n.UID, "src/", "")] = desc
		}
	}
	for uid, want := range map[string]string{
		"code:class:App/Program.cs::Entry":          "class type_kind=record fields=[Key Sink]",
		"code:class:Lib/Shapes.cs::Point":           "class type_kind=struct fields=[X]",
		"code:class:Lib/Shapes.cs::Color":           "class type_kind=enum fields=[Red Green]",
		"code:class:Lib/Shapes.cs::IShape":          "class type_kind=interface fields=[Name]",
		"code:class:Lib/Logger.cs::Registry":        "class type_kind=class",
		"code:class:Lib/Registry.Part.cs::Registry": "class type_kind=class",
		"code:function:Lib/Shapes.cs::Circle.Name":  "method member_kind=property",
		"code:function:Lib/Shapes.cs::IShape.Area":  "method",
	} {
		if got := kinds[uid]; got != want {
			t.Errorf("%s: got %q, want %q", uid, got, want)
		}
	}
}

// TestCSharp_DeepNestingIsBounded feeds 20,000 nested classes and 20,000
// nested namespace blocks: every nested name holds the enclosing ones, so
// without the bounds a file of n levels costs n² in names.
func TestCSharp_DeepNestingIsBounded(t *testing.T) {
	root := t.TempDir()
	deep := 20000
	writeFile(t, root, "Nest.cs", []byte("class A{"+strings.Repeat("class B{", deep)+strings.Repeat("}", deep)+"}\n"))
	writeFile(t, root, "Ns.cs", []byte(strings.Repeat("namespace N{", deep)+"class C{}"+strings.Repeat("}", deep)+"\n"))
	res := index(t, root, Options{}, nil)
	classes := 0
	for _, n := range res.Payloads["Nest.cs"].Nodes {
		if n.Kind == graph.KindClass {
			classes++
		}
	}
	if classes != 64 {
		t.Errorf("%d class nodes for 20,001 nested classes, want the 64 outermost", classes)
	}
	for _, n := range res.Payloads["Ns.cs"].Nodes {
		if n.Kind == graph.KindClass {
			t.Errorf("class %s of a namespace nested past the bound has a node", n.UID)
		}
	}
}
