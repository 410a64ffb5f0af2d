package envelope

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cos-dev/cos/internal/testutil"
)

// goldenCase is one envelope path pinned byte for byte.
type goldenCase struct {
	name string
	env  func() Envelope
}

func numbered(prefix string, n, width int) []any {
	l := make([]any, n)
	for i := range l {
		s := fmt.Sprintf("%s-%03d", prefix, i)
		l[i] = map[string]any{"uid": s, "label": strings.Repeat("·", width)}
	}
	return l
}

func goldenCases() []goldenCase {
	small := Options{BudgetChars: 700}
	cases := []goldenCase{
		{"success_plain", func() Envelope {
			type task struct {
				ID     string   `json:"id"`
				Status string   `json:"status"`
				Tags   []string `json:"tags"`
				Score  float64  `json:"score"`
			}
			return OK(task{ID: "TASK-0007", Status: "done", Tags: []string{"a<b", "c&d"}, Score: 0.25}, Meta{Layer: LayerTasks, LogSeq: 12}, Options{})
		}},
		{"success_tool_meta", func() Envelope {
			return OK(map[string]any{"path": []string{"a", "b"}}, Meta{Layer: LayerGraph, LogSeq: 3, Tool: ToolMeta{
				ResolvedFrom: "direct", SourceResolvedFrom: "path_prefix", TargetResolvedFrom: "fuzzy",
				DefaultKindsPicked: boolPtr(true), NodeKind: "function", SemanticScope: "transitive_depth_2",
				FixableCategories: []string{"stale_paths", "dangling_source"}, InformationalCategories: []string{"slowest_extractions"},
			}}, Options{})
		}},
		{"success_spoofed_meta", func() Envelope {
			return OK(map[string]any{"x": 1, "meta": map[string]any{"truncated": true, "tokens_estimated": 1, "envelope_unshrinkable": true}}, Meta{Layer: LayerHealth}, Options{})
		}},
		{"trim_list", func() Envelope {
			return OK(map[string]any{"results": numbered("r", 40, 8), "scope": "high"}, Meta{Layer: layerDocs, LogSeq: 5}, small)
		}},
		{"trim_two_lists", func() Envelope {
			return OK(map[string]any{"results": numbered("r", 3, 200), "references": numbered("ref", 40, 4)}, Meta{Layer: LayerGraph}, small)
		}},
		{"trim_edges_by_type", func() Envelope {
			return OK(map[string]any{"edges_by_type": map[string]any{"calls": numbered("c", 30, 4), "imports": numbered("i", 6, 4), "total": 36}}, Meta{Layer: LayerGraph}, small)
		}},
		{"trim_strings", func() Envelope {
			return OK(map[string]any{"summary": strings.Repeat("line \"q\"\n", 120), "signature": strings.Repeat("日本😀", 90), "risk_level": "high"}, Meta{Layer: LayerGraph}, small)
		}},
		{"trim_unshrinkable", func() Envelope {
			return OK(map[string]any{"node": strings.Repeat("x", 900), "results": numbered("r", 2, 4)}, Meta{Layer: LayerGraph}, small)
		}},
		{"trim_nested_string", func() Envelope {
			return OK(map[string]any{"node": map[string]any{"source": strings.Repeat("x", 900)}, "results": numbered("r", 2, 4)}, Meta{Layer: LayerGraph}, small)
		}},
		{"trim_subgraph", func() Envelope {
			nodes := numbered("n", 8, 2)
			edges := []any{}
			for i := 1; i < 8; i++ {
				edges = append(edges, map[string]any{"source": "n-000", "target": fmt.Sprintf("n-%03d", i), "type": "contains"})
			}
			edges = append(edges, map[string]any{"source": "n-001", "target": "n-002", "type": "calls"}, map[string]any{"source": "n-001", "target": "ext", "type": "imports"})
			return OK(map[string]any{"nodes": nodes, "edges": edges}, Meta{Layer: LayerGraph}, Options{BudgetChars: 700})
		}},
		{"opt_out", func() Envelope {
			return OK(map[string]any{"results": numbered("r", 40, 8)}, Meta{Layer: LayerTasks}, Options{BudgetChars: 700, NoBudget: true})
		}},
		{"failure_plain_error", func() Envelope {
			return Fail(fmt.Errorf("open /var/lib/cos/state/events.db: %w", errors.New("disk I/O error")))
		}},
		{"failure_timeout", func() Envelope {
			return Fail(fmt.Errorf("query: %w", context.DeadlineExceeded))
		}},
		{"failure_not_object", func() Envelope {
			return OK([]int{1, 2, 3}, Meta{}, Options{})
		}},
		{"failure_retryable_override", func() Envelope {
			return Fail(Errorf(CodeStorage, "storage busy").withRetryable(true))
		}},
		{"safe_panic", func() Envelope {
			return Safe(context.Background(), CallInfo{Tool: "cos_example"}, nil, func(context.Context) (Envelope, error) {
				panic("index out of range [7] with length 3")
			})
		}},
	}
	perCategory := map[Category]*Error{
		CategoryTransient:      Errorf(CodeTimeout, "the index did not answer within 2s"),
		CategoryValidation:     Errorf(CodeArgument, "limit must be in [1, 500], got 0").WithDetails(map[string]any{"field": "limit", "got": 0, "legal": "1..500", "example": map[string]any{"limit": 50}}),
		CategoryPermission:     Errorf(CodeReadOnly, "this state folder is read-only"),
		CategoryNotFound:       Errorf(CodeNotFound, "no task named TASK-0999"),
		CategoryUnavailable:    Errorf(CodeUnavailable, "the search index is not built; run cos index"),
		CategoryInternal:       Errorf(CodeIntegrity, "hash chain broken at seq 17"),
		CategoryModuleDisabled: Errorf(CodeModuleDisabled, "module graph is disabled; run cos module enable graph"),
		CategoryConflict:       Errorf(CodeStaleRevision, "expected revision 3, stream is at 4").WithDetails(map[string]any{"current_revision": 4}),
	}
	for _, cat := range Categories {
		e := perCategory[cat]
		cases = append(cases, goldenCase{"failure_" + string(cat), func() Envelope { return Fail(e) }})
	}
	return cases
}

func TestEnvelope_Golden(t *testing.T) {
	seen := map[string]bool{}
	for _, gc := range goldenCases() {
		t.Run(gc.name, func(t *testing.T) {
			seen[gc.name+".json"] = true
			env := gc.env()
			var pretty bytes.Buffer
			if err := json.Indent(&pretty, env.JSON(), "", "  "); err != nil {
				t.Fatalf("indent: %v\n%s", err, env.JSON())
			}
			pretty.WriteByte('\n')
			path := filepath.Join("testdata", "golden", gc.name+".json")
			if *testutil.Update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, pretty.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create)", err)
			}
			if !bytes.Equal(pretty.Bytes(), want) {
				t.Errorf("envelope differs from %s (run with -update if intended):\ngot:\n%s\nwant:\n%s", path, pretty.Bytes(), want)
			}
		})
	}
	if *testutil.Update {
		return
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "golden", "*.json"))
	for _, f := range files {
		if !seen[filepath.Base(f)] {
			t.Errorf("stale golden file %s has no case", f)
		}
	}
}
