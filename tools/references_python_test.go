package tools

import (
	"slices"
	"testing"

	"github.com/cos-dev/cos/tools/envelope"
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
	var callers []string
	for _, ref := range graphList(t, e.Data, "references") {
		if ref["type"] == "calls" {
			callers = append(callers, ref["source"].(string))
		}
	}
	slices.Sort(callers)
	want := []string{"code:function:app.py::build", "code:function:app.py::use"}
	if !slices.Equal(callers, want) {
		t.Fatalf("callers of Child.own = %v, want %v", callers, want)
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
