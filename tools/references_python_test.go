package tools

import (
	"slices"
	"testing"

	"github.com/cos-dev/cos/envelope"
)

// pythonThreeFiles is the newcomer's fixture: a method called on instances
// whose class comes from annotations, constructors and an inherited call.
var pythonThreeFiles = map[string]string{
	"shapes/base.py":  "class Base:\n    def own(self):\n        return 0\n\n    def twice(self):\n        return self.own() + self.own()\n",
	"shapes/child.py": "from shapes.base import Base\n\n\nclass Child(Base):\n    def own(self):\n        return super().own() + 1\n",
	"app.py":          "from shapes.child import Child\n\n\ndef use(x: Child):\n    return x.own()\n\n\ndef build():\n    c = Child()\n    return c.own()\n\n\ndef untyped(y):\n    return y.own()\n",
}

// TestReferences_PythonInstanceCallers: cos_graph_references for Child.own
// lists the functions that call it on instances (an annotated parameter, a
// constructed local), and not the untyped call, which stays a stub.
func TestReferences_PythonInstanceCallers(t *testing.T) {
	r := openGraphRepo(t, pythonThreeFiles, envelope.Options{})
	idxReport(t, r.s, `{}`)
	e := graphOK(t, r.s, "cos_graph_references", `{"uid": "Child.own"}`)
	var callers, through []string
	for _, ref := range graphList(t, e.Data, "references") {
		switch {
		case ref["type"] == "calls" && ref["via"] == nil:
			callers = append(callers, ref["source"].(string))
		case ref["via"] != nil:
			through = append(through, ref["source"].(string))
		}
	}
	slices.Sort(callers)
	want := []string{"code:function:app.py::build", "code:function:app.py::use"}
	if !slices.Equal(callers, want) {
		t.Fatalf("callers of Child.own = %v, want %v", callers, want)
	}
	// self.own() in Base.twice may run the override; super().own() in
	// Child.own itself never does.
	if want := []string{"code:function:shapes/base.py::Base.twice"}; !slices.Equal(through, want) {
		t.Fatalf("callers of Child.own through Base.own = %v, want %v", through, want)
	}
	// Base.own is reached through super() and self.
	e = graphOK(t, r.s, "cos_graph_references", `{"uid": "code:function:shapes/base.py::Base.own"}`)
	callers = nil
	for _, ref := range graphList(t, e.Data, "references") {
		callers = append(callers, ref["source"].(string))
	}
	slices.Sort(callers)
	want = []string{"code:function:shapes/base.py::Base.twice", "code:function:shapes/child.py::Child.own"}
	if !slices.Equal(callers, want) {
		t.Fatalf("references of Base.own = %v, want %v", callers, want)
	}
}

// TestReferences_OverrideCallers: a method that overrides a base-class
// method gets the callers of the base method (via inherits_from, through
// it): a call on a Base-typed receiver may run the override. Impact
// follows the same way.
func TestReferences_OverrideCallers(t *testing.T) {
	r := openGraphRepo(t, map[string]string{
		"m.py": "class Base:\n    def run(self):\n        return self.step()\n\n    def step(self):\n        return 1\n\n\nclass Child(Base):\n    def step(self):\n        return 2\n\n\ndef go(b: Base):\n    return b.step()\n",
	}, envelope.Options{})
	idxReport(t, r.s, `{}`)
	e := graphOK(t, r.s, "cos_graph_references", `{"uid": "Child.step"}`)
	got := map[string]string{}
	for _, ref := range graphList(t, e.Data, "references") {
		got[ref["source"].(string)] = ref["via"].(string) + " " + ref["through"].(string)
	}
	want := map[string]string{
		"code:function:m.py::Base.run": "inherits_from code:function:m.py::Base.step",
		"code:function:m.py::go":       "inherits_from code:function:m.py::Base.step",
	}
	if graphJSON(t, got) != graphJSON(t, want) {
		t.Fatalf("references of Child.step = %v, want %v", got, want)
	}
	e = graphOK(t, r.s, "cos_graph_impact", `{"uid": "Child.step", "depth": 1}`)
	var deps []string
	for _, n := range graphList(t, e.Data, "nodes") {
		deps = append(deps, n["uid"].(string))
	}
	if !graphHasAll(deps, "code:function:m.py::Base.run", "code:function:m.py::go") {
		t.Fatalf("impact of Child.step = %v, want the callers of Base.step", deps)
	}
}
