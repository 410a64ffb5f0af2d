package extract

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cos-dev/cos/graph"
)

// edgesOfType lists the edges of one type of every payload as
// "source -> target", with the uid prefixes of code nodes and the fixture's
// source root cut for reading.
func edgesOfType(payloads map[string]graph.FileExtracted, typ string) []string {
	short := func(uid string) string {
		for _, p := range []string{"code:function:", "code:class:", "code:file:", "code:external:"} {
			uid = strings.TrimPrefix(uid, p)
		}
		return strings.TrimPrefix(uid, "src/main/java/com/acme/")
	}
	var out []string
	for _, pl := range payloads {
		for _, e := range pl.Edges {
			if e.Type == typ && !strings.HasPrefix(e.Source, "folder:") {
				out = append(out, short(e.Source)+" -> "+short(e.Target))
			}
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

func checkEdgeSet(t *testing.T, typ string, got, want []string) {
	t.Helper()
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Errorf("%s edges:\ngot\n  %s\nwant\n  %s", typ, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// TestJava_Fixture indexes a small Maven/Gradle project and asserts the
// exact calls, inherits_from, implements, imports and requires edges: this
// and unqualified calls (outer class, static import), super.m() and
// super(…), Type.staticM(), typed locals, fields, parameters and var,
// chained calls through declared returns, new X(), X::new, X::m, calls
// through an interface, a record's implicit accessor, and calls inside
// lambdas and anonymous classes (which belong to the enclosing method).
func TestJava_Fixture(t *testing.T) {
	root := copyTree(t, "testdata/java")
	res := index(t, root, Options{}, nil)
	p := res.Payloads
	checkEdgeSet(t, "calls", edgesOfType(p, graph.EdgeCalls), []string{
		"app/App.java::App.run -> *.call",                          // receiver of unknown type: a stub
		"app/App.java::App.run -> *.forEach",                       // List is outside the tree
		"app/App.java::App.run -> app/App.java::App.helper",        // anonymous class → outer method
		"app/App.java::App.run -> geo/Point.java::Point",           // Point::new
		"app/App.java::App.run -> geo/Point.java::Point.copy",      // var p = Point.origin(); p.copy()
		"app/App.java::App.run -> geo/Point.java::Point.norm",      // p.copy().norm(), Point::norm
		"app/App.java::App.run -> geo/Point.java::Point.origin",    // static import, Point.origin()
		"app/App.java::App.run -> shapes/Circle.java::Circle",      // new Circle(…) through import p.*
		"app/App.java::App.run -> shapes/Circle.java::Circle.area", // typed local
		"app/App.java::App.run -> shapes/Circle.java::Circle.name", // inside a lambda
		"app/App.java::App.run -> shapes/Shape.java::Shape.area",   // parameter of an interface type
		"app/App.java::App.run -> shapes/Shape.java::Shape.name",   // field of an interface type
		"geo/Point.java::Point.copy -> geo/Point.java::Point",
		"geo/Point.java::Point.norm -> *.sqrt",
		"geo/Point.java::Point.origin -> geo/Point.java::Point",
		"shapes/Base.java::Base -> shapes/Helper.java::Helper.make",              // field initialiser: the class
		"shapes/Base.java::Base.name -> shapes/Base.java::Base.describe",         // unqualified: this class
		"shapes/Base.java::Base.describe -> shapes/Base.java::Base.describe",     // one overload calls another: one uid
		"shapes/Base.java::Base.name -> shapes/Helper.java::Helper.help",         // typed field
		"shapes/Circle.java::Circle -> geo/Point.java::Point.copy",               // constructor body: the class
		"shapes/Circle.java::Circle -> shapes/Base.java::Base",                   // super(…)
		"shapes/Circle.java::Circle.Inner.go -> shapes/Circle.java::Circle.area", // outer class's method
		"shapes/Circle.java::Circle.Pair.len -> geo/Point.java::Point.norm",
		"shapes/Circle.java::Circle.Pair.len -> shapes/Circle.java::Circle.Pair.b", // record accessor
		"shapes/Circle.java::Circle.area -> geo/Point.java::Point.norm",
		"shapes/Circle.java::Circle.name -> shapes/Base.java::Base.name", // super.name()
		"shapes/Circle.java::Circle.name -> shapes/Circle.java::Circle.area",
		"shapes/Helper.java::Helper.make -> shapes/Helper.java::Helper",
	})
	checkEdgeSet(t, "inherits_from", edgesOfType(p, graph.EdgeInheritsFrom), []string{
		"shapes/Circle.java::Circle -> shapes/Base.java::Base",
		"shapes/Solid.java::Solid -> shapes/Shape.java::Shape", // interface extends interface
	})
	checkEdgeSet(t, "implements", edgesOfType(p, graph.EdgeImplements), []string{
		"shapes/Base.java::Base -> shapes/Shape.java::Shape",
		"shapes/Circle.java::Circle -> shapes/Solid.java::Solid",
	})
	checkEdgeSet(t, "imports", edgesOfType(p, graph.EdgeImports), []string{
		"app/App.java -> folder:src/main/java/com/acme/shapes", // on-demand import: the package's folder
		"app/App.java -> geo/Point.java",                       // single-type and static imports
		"shapes/Circle.java -> geo/Point.java",
	})
	checkEdgeSet(t, "requires", edgesOfType(p, graph.EdgeRequires), []string{
		"build.gradle -> maven:package:com.google.guava:guava",
		"build.gradle -> maven:package:org.junit.jupiter:junit-jupiter",
		"build.gradle -> maven:package:org.projectlombok:lombok",
		"build.gradle.kts -> maven:package:com.squareup.okhttp3:okhttp",
		"build.gradle.kts -> maven:package:org.slf4j:slf4j-api",
		"pom.xml -> maven:package:com.google.code.gson:gson",
		"pom.xml -> maven:package:org.junit.jupiter:junit-jupiter",
	})
	// Versions and scopes: ${property} expanded, the Gradle configuration.
	versions := map[string]string{}
	for _, pl := range p {
		for _, e := range pl.Edges {
			if e.Type == graph.EdgeRequires {
				versions[pl.Path+" "+strings.TrimPrefix(e.Target, "maven:package:")] = fmt.Sprint(e.Metadata["version"], " ", e.Metadata["scope"])
			}
		}
	}
	for k, want := range map[string]string{
		"pom.xml org.junit.jupiter:junit-jupiter": "5.10.0 test",
		"pom.xml com.google.code.gson:gson":       "2.11.0 <nil>",
		"build.gradle org.projectlombok:lombok":   "1.18.30 compileOnly",
		"build.gradle.kts org.slf4j:slf4j-api":    "2.0.9 api",
	} {
		if versions[k] != want {
			t.Errorf("requires %s: version and scope %q, want %q", k, versions[k], want)
		}
	}
	// Declarations: nested types, kinds, overloads as one node, contains.
	nodes := map[string]graph.Node{}
	contains := map[string]bool{}
	for _, pl := range p {
		for _, n := range pl.Nodes {
			nodes[n.UID] = n
		}
		for _, e := range pl.Edges {
			if e.Type == graph.EdgeContains {
				contains[e.Source+" -> "+e.Target] = true
			}
		}
	}
	const shapes = "src/main/java/com/acme/shapes/"
	for uid, kind := range map[string]string{
		"code:class:" + shapes + "Shape.java::Shape":                 "interface",
		"code:class:" + shapes + "Circle.java::Circle.Inner":         "class",
		"code:class:" + shapes + "Circle.java::Circle.Kind":          "enum",
		"code:class:" + shapes + "Circle.java::Circle.Pair":          "record",
		"code:class:src/main/java/com/acme/app/App.java::App.Marker": "annotation",
		"code:function:" + shapes + "Shape.java::Shape.area":         "",
		"code:function:" + shapes + "Circle.java::Circle.Kind.flip":  "",
		"code:function:" + shapes + "Circle.java::Circle.Inner.go":   "",
		"code:function:" + shapes + "Base.java::Base.describe":       "",
	} {
		n, ok := nodes[uid]
		if !ok {
			t.Errorf("no node %s", uid)
			continue
		}
		if kind != "" && n.Metadata["type_kind"] != kind {
			t.Errorf("%s: type_kind %v, want %s", uid, n.Metadata["type_kind"], kind)
		}
	}
	if d := nodes["code:function:"+shapes+"Base.java::Base.describe"]; d.Line != 11 || d.EndLine != 17 {
		t.Errorf("overloads of Base.describe span %d-%d, want 11-17", d.Line, d.EndLine)
	}
	for _, c := range []string{
		"code:class:" + shapes + "Circle.java::Circle -> code:class:" + shapes + "Circle.java::Circle.Inner",
		"code:class:" + shapes + "Circle.java::Circle.Inner -> code:function:" + shapes + "Circle.java::Circle.Inner.go",
		"code:file:" + shapes + "Circle.java -> code:class:" + shapes + "Circle.java::Circle",
	} {
		if !contains[c] {
			t.Errorf("no contains edge %s", c)
		}
	}
	if f := nodes["code:class:"+shapes+"Circle.java::Circle"].Metadata["fields"]; f == nil {
		t.Errorf("Circle lists no fields")
	}
}

// BenchmarkRun_Java extracts the Java tree named by COS_JAVA_BENCH_DIR from
// scratch, reporting lines of Java per second and, once, the counts of
// files, nodes and edges by type.
func BenchmarkRun_Java(b *testing.B) {
	root := os.Getenv("COS_JAVA_BENCH_DIR")
	if root == "" {
		b.Skip("COS_JAVA_BENCH_DIR is not set")
	}
	lines, files := 0, 0
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".java") {
			if data, err := os.ReadFile(p); err == nil {
				lines += bytes.Count(data, []byte("\n"))
				files++
			}
		}
		return nil
	})
	b.ResetTimer()
	start := time.Now()
	var last indexResult
	for i := 0; i < b.N; i++ {
		last = index(b, root, Options{}, nil)
	}
	b.ReportMetric(float64(lines*b.N)/time.Since(start).Seconds(), "lines/s")
	nodes, edges := 0, map[string]int{}
	for _, pl := range last.Payloads {
		nodes += len(pl.Nodes)
		for _, e := range pl.Edges {
			edges[e.Type]++
		}
	}
	b.Logf("%d java files, %d lines, %d payloads, %d nodes, edges %v, parse errors in %d files", files, lines, len(last.Payloads), nodes, edges, last.Stats.FilesWithParseErrors)
}

// TestJava_DeepNestingIsBounded checks that type declarations nested past
// maxTypeNesting (64) are left out: 64 levels are nodes, the 65th and
// deeper are not, and 20,000 levels index in bounded memory and time
// instead of the n² names they cost before.
func TestJava_DeepNestingIsBounded(t *testing.T) {
	root := t.TempDir()
	deep := 20000
	writeFile(t, root, "Nest.java", []byte("class A{"+strings.Repeat("class B{", deep)+strings.Repeat("}", deep)+"}\n"))
	res := index(t, root, Options{}, nil)
	classes := 0
	for _, n := range res.Payloads["Nest.java"].Nodes {
		if n.Kind == graph.KindClass {
			classes++
		}
	}
	if classes != 64 {
		t.Errorf("%d class nodes for 20,001 nested classes, want the 64 outermost", classes)
	}
}
