package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/cos-dev/cos/envelope"
)

// nodeArguments are the arguments that name a graph node (a uid, a
// repo-relative path or a name), tool → field: an empty one can only be a
// mistake, so each is refused as E_ARGUMENT before its handler runs.
var nodeArguments = []struct{ tool, field, args string }{
	{"cos_graph_resolve", "q", `{"q": %s}`},
	{"cos_graph_context", "uid_or_name", `{"uid_or_name": %s}`},
	{"cos_graph_references", "uid", `{"uid": %s}`},
	{"cos_graph_impact", "uid", `{"uid": %s}`},
	{"cos_graph_similar", "uid", `{"uid": %s}`},
	{"cos_graph_rename_plan", "uid", `{"uid": %s, "new_name": "Renamed"}`},
	{"cos_graph_path", "source", `{"source": %s, "target": "code:function:main.go::main"}`},
	{"cos_graph_path", "target", `{"source": "code:function:main.go::main", "target": %s}`},
	{"cos_graph_export", "root", `{"root": %s}`},
	{"cos_graph_delete", "uids", `{"uids": [%s]}`},
}

func TestParseArgs_EmptyNodeArgumentIsArgumentError(t *testing.T) {
	r := openFixture(t)
	for _, tc := range nodeArguments {
		for _, v := range []string{`""`, `"   "`, `"\t\n"`} {
			t.Run(tc.tool+"/"+tc.field+"/"+v, func(t *testing.T) {
				args := fmt.Sprintf(tc.args, v)
				e := graphFail(t, r.s, tc.tool, args, envelope.CodeArgument)
				msg := e.Error.Message
				for _, want := range []string{tc.field + ": got ", "empty string", "expected ", "non-empty", "example: "} {
					if !strings.Contains(msg, want) {
						t.Errorf("message %q lacks %q", msg, want)
					}
				}
				if got := e.Error.Details["field"]; got != tc.field {
					t.Errorf("details.field %v, want %s", got, tc.field)
				}
				if e.Error.Details["example"] == nil {
					t.Errorf("details hold no example: %v", e.Error.Details)
				}
			})
		}
	}
	// Leaving root out still exports the top nodes by degree; an empty root
	// sent explicitly no longer does.
	e := graphOK(t, r.s, "cos_graph_export", `{}`)
	if e.Data["selection"] != "top_degree" {
		t.Fatalf("export without root: selection %v, want top_degree", e.Data["selection"])
	}
	graphOK(t, r.s, "cos_graph_export", `{"root": null}`)
	// A real name still resolves: the rule refuses only blank strings.
	graphOK(t, r.s, "cos_graph_context", `{"uid_or_name": " code:function:main.go::main "}`)
}

// TestCatalogue_NodeArgumentsAreNonEmpty guards the rule for tools added
// later: every graph argument described as a uid, and every one listed
// above, declares NonEmpty.
func TestCatalogue_NodeArgumentsAreNonEmpty(t *testing.T) {
	listed := map[string]bool{}
	for _, tc := range nodeArguments {
		listed[tc.tool+"."+tc.field] = true
	}
	for _, tool := range catalogue() {
		for _, p := range tool.Params {
			key := tool.Name + "." + p.Name
			describesNode := tool.Module == "graph" && (p.Type == TString || p.Type == TStringList) &&
				strings.HasPrefix(p.Description, "uid")
			if (listed[key] || describesNode) && !p.NonEmpty {
				t.Errorf("%s names a node and does not declare NonEmpty", key)
			}
			if describesNode && !listed[key] {
				t.Errorf("%s names a node: add it to nodeArguments", key)
			}
		}
	}
}

func TestParseArgs_InvalidJSONSaysSo(t *testing.T) {
	r := openGraphRepo(t, nil, envelope.Options{})
	deep := strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000)
	tests := []struct {
		name, tool, args string
		want             []string
	}{
		{"truncated object", "cos_health", `{bad`, []string{"not valid JSON", "offset 2", "example: {}"}},
		{"unterminated", "cos_graph_resolve", `{"q": "x"`, []string{"not valid JSON", "offset 9", `example: {"q"`}},
		{"trailing garbage", "cos_graph_resolve", `{"q": "x"} }`, []string{"not valid JSON", "offset"}},
		{"deep list", "cos_health", deep, []string{fmt.Sprintf("nests deeper than %d levels", maxArgDepth), "example: {}"}},
		{"deep inside an object", "cos_task_create", `{"title": "x", "signals": ` + deep + `}`, []string{fmt.Sprintf("nests deeper than %d levels", maxArgDepth), "example: "}},
		{"just over the limit", "cos_health", strings.Repeat("[", maxArgDepth+1) + strings.Repeat("]", maxArgDepth+1), []string{fmt.Sprintf("nests deeper than %d levels", maxArgDepth)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := graphFail(t, r.s, tc.tool, tc.args, envelope.CodeArgument)
			for _, w := range tc.want {
				if !strings.Contains(e.Error.Message, w) {
					t.Errorf("message %q lacks %q", e.Error.Message, w)
				}
			}
			if strings.Contains(e.Error.Message, "got an object") || strings.Contains(e.Error.Message, "got a list") {
				t.Errorf("message %q calls broken JSON a value of some type", e.Error.Message)
			}
			if e.Error.Details["field"] != "arguments" {
				t.Errorf("details.field %v, want arguments", e.Error.Details["field"])
			}
		})
	}
	// Valid JSON that is not an object keeps its own message, and nesting
	// up to the limit is accepted.
	e := graphFail(t, r.s, "cos_health", `[1]`, envelope.CodeArgument)
	if !strings.Contains(e.Error.Message, "got a list [1], expected a JSON object") {
		t.Errorf("message %q", e.Error.Message)
	}
	// {"nodes": [{…, "metadata": M}]} is 3 levels around M.
	k := maxArgDepth - 3
	metadata := strings.Repeat(`{"a":`, k) + "1" + strings.Repeat("}", k)
	graphOK(t, r.s, "cos_graph_upsert", `{"nodes": [{"uid": "code:file:deep.go", "metadata": `+metadata+`}]}`)
}

// TestRunner_Call_InvalidBudgetRunsNothing: a negative budget is the
// transport's mistake; it is refused before the handler runs, so a write
// tool writes nothing and a retry cannot duplicate anything.
func TestRunner_Call_InvalidBudgetRunsNothing(t *testing.T) {
	r := openGraphRepo(t, nil, envelope.Options{})
	for _, budget := range []envelope.Options{{BudgetChars: -1}, {SubgraphBudgetChars: -5}} {
		env := r.s.r.Call(context.Background(), "cos_task_create", json.RawMessage(`{"title": "x"}`), budget)
		if env.OK() {
			t.Fatalf("budget %+v: ok, want a failure", budget)
		}
		e := env.Err()
		if e.Code != envelope.CodeInternal || !strings.Contains(e.Message, "budget") || !strings.Contains(e.Message, "did not run") {
			t.Fatalf("budget %+v: %s %q, want E_INTERNAL naming the budget and saying the tool did not run", budget, e.Code, e.Message)
		}
	}
	board := graphOK(t, r.s, "cos_task_board", `{}`)
	if rows := graphList(t, board.Data, "rows"); len(rows) != 0 {
		t.Fatalf("a call with an invalid budget wrote %d tasks", len(rows))
	}
	if seq := r.s.st.Position().Seq; seq != 0 {
		t.Fatalf("the log moved to seq %d", seq)
	}
}

// TestParseArgs_DuplicateArgumentRefused: an argument sent twice — even
// spelled once with an escape — is E_ARGUMENT naming it, and a write tool
// writes nothing (before, the last one silently won).
func TestParseArgs_DuplicateArgumentRefused(t *testing.T) {
	r := openGraphRepo(t, nil, envelope.Options{})
	for _, args := range []string{
		`{"title": "a", "title": "b"}`,
		`{"title": "a", "\u0074itle": "b"}`,
	} {
		e := graphFail(t, r.s, "cos_task_create", args, envelope.CodeArgument)
		if !strings.Contains(e.Error.Message, "title: got the argument twice") || e.Error.Details["field"] != "title" {
			t.Errorf("%s: %q, details %v; want the field named", args, e.Error.Message, e.Error.Details)
		}
	}
	// A key twice inside a nested object is refused too, named by its path.
	for args, field := range map[string]string{
		`{"title": "a", "signals": {"dimensions": 1, "dimensions": 5}}`:                              "signals.dimensions",
		`{"nodes": [{"uid": "code:file:a.go"}, {"uid": "code:file:b.go", "uid": "code:file:c.go"}]}`: "nodes[1].uid",
	} {
		tool := "cos_task_create"
		if strings.HasPrefix(args, `{"nodes"`) {
			tool = "cos_graph_upsert"
		}
		e := graphFail(t, r.s, tool, args, envelope.CodeArgument)
		if e.Error.Details["field"] != field || !strings.Contains(e.Error.Message, "twice") {
			t.Errorf("%s: %q, details %v; want field %s", args, e.Error.Message, e.Error.Details, field)
		}
	}
	board := graphOK(t, r.s, "cos_task_board", `{}`)
	if n, _ := board.Data["total"].(float64); n != 0 {
		t.Errorf("a refused create wrote: board total %v", board.Data["total"])
	}
	// The same name inside a nested value is not a duplicate argument.
	graphOK(t, r.s, "cos_graph_upsert", `{"nodes": [{"uid": "code:file:dup.go", "metadata": {"nodes": 1, "uid": 2}}]}`)
}

// TestTaskBoard_TinyBudgetAnswers: a board of one task under a budget too
// small for it answers (trimmed, or marked unshrinkable) instead of
// refusing a limit the caller never sent (before: E_ARGUMENT "limit: got
// -1" or 0, from the board shortening its own page below one row).
func TestTaskBoard_TinyBudgetAnswers(t *testing.T) {
	r := openGraphRepo(t, nil, envelope.Options{})
	for _, n := range []int{0, 1} {
		if n == 1 {
			graphOK(t, r.s, "cos_task_create", `{"title": "one task with a title long enough to overflow a tiny budget"}`)
		}
		for _, budget := range []int{1, 200} {
			env := r.s.r.Call(context.Background(), "cos_task_board", json.RawMessage(`{}`), envelope.Options{BudgetChars: budget})
			if !env.OK() && strings.Contains(string(env.JSON()), "limit") {
				t.Errorf("%d tasks, budget %d: %.300s", n, budget, env.JSON())
			}
		}
	}
}
