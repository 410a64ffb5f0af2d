package tools

import (
	"testing"

	"github.com/cos-dev/cos/envelope"
)

// TestReferences_CPPOutOfClassOverride: a C++ override defined outside its
// class, in another file than the class, gets the callers of the base
// method (via inherits_from, through it), as one defined in the class does.
// Impact follows the same way, and the impact of the base method lists the
// override.
func TestReferences_CPPOutOfClassOverride(t *testing.T) {
	r := openGraphRepo(t, map[string]string{
		"a.hpp": "struct Base{virtual int run(){return 0;}};\nstruct Derived:Base{int run() override;};\nint drive(Base&);\n",
		"a.cpp": "#include \"a.hpp\"\nint drive(Base& b){return b.run();}\nint Derived::run(){return 1;}\n",
	}, envelope.Options{})
	idxReport(t, r.s, `{}`)
	e := graphOK(t, r.s, "cos_graph_references", `{"uid": "Derived.run"}`)
	got := map[string]string{}
	for _, ref := range graphList(t, e.Data, "references") {
		via, _ := ref["via"].(string)
		through, _ := ref["through"].(string)
		got[ref["source"].(string)] = ref["type"].(string) + " " + via + " " + through
	}
	want := map[string]string{
		"code:function:a.cpp::drive": "calls inherits_from code:function:a.hpp::Base.run",
	}
	if graphJSON(t, got) != graphJSON(t, want) {
		t.Fatalf("references of Derived.run = %v, want %v", got, want)
	}
	e = graphOK(t, r.s, "cos_graph_impact", `{"uid": "Derived.run", "depth": 1}`)
	var deps []string
	for _, n := range graphList(t, e.Data, "nodes") {
		deps = append(deps, n["uid"].(string))
	}
	if !graphHasAll(deps, "code:function:a.cpp::drive") {
		t.Fatalf("impact of Derived.run = %v, want the callers of Base.run", deps)
	}
	// The override must follow a change of the base method.
	e = graphOK(t, r.s, "cos_graph_impact", `{"uid": "Base.run", "depth": 1}`)
	got = map[string]string{}
	for _, n := range graphList(t, e.Data, "nodes") {
		got[n["uid"].(string)] = n["via"].(string) + " " + n["through"].(string)
	}
	want = map[string]string{
		"code:function:a.cpp::drive":       "calls code:function:a.hpp::Base.run",
		"code:function:a.cpp::Derived.run": "inherits_from code:function:a.hpp::Base.run",
	}
	if graphJSON(t, got) != graphJSON(t, want) {
		t.Fatalf("impact of Base.run = %v, want %v", got, want)
	}
}
