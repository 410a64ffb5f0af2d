package tools

import (
	"encoding/json"
	"testing"

	"github.com/cos-dev/cos/query"
)

func TestCatalogue_TitlesAndDataFields(t *testing.T) {
	for _, tool := range Catalogue() {
		if tool.Title == "" {
			t.Errorf("%s: no Title", tool.Name)
		}
		if len(tool.Data) == 0 {
			t.Errorf("%s: no Data fields", tool.Name)
		}
		if err := tool.Data.check(); err != nil {
			t.Errorf("%s: %v", tool.Name, err)
		}
		var s map[string]any
		if err := json.Unmarshal(tool.OutputSchema(), &s); err != nil {
			t.Errorf("%s: outputSchema: %v", tool.Name, err)
		}
	}
}

func TestFieldsOf_Answers(t *testing.T) {
	got := fieldsOf(taskAnswer{})
	want := Fields{"task": "tasks.Task", "seq": "integer", "replayed": "boolean"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("fieldsOf(taskAnswer)[%s] = %q, want %q", k, got[k], v)
		}
	}
	if m := fieldsOf(metricAnswer{}); m["name"] != "string" || m["value"] != "number" || m["tags"] != "map[string]string" || m["time"] != "string" {
		t.Errorf("fieldsOf(metricAnswer) = %v: the embedded Recorded fields are flattened", m)
	}
}

// A type met more than once in a tool's output schema is said once, in
// $defs, each occurrence a $ref to it; the shared schemas of the
// registered types are left as they were.
func TestOutputSchema_RepeatsSaidOnce(t *testing.T) {
	var rename *Tool
	for _, tl := range Catalogue() {
		if tl.Name == "cos_graph_rename_plan" {
			rename = tl
		}
	}
	var s struct {
		Defs       map[string]json.RawMessage `json:"$defs"`
		Properties struct {
			Data struct {
				Properties map[string]struct {
					Items map[string]any `json:"items"`
				} `json:"properties"`
			} `json:"data"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(rename.OutputSchema(), &s); err != nil {
		t.Fatal(err)
	}
	sites := s.Properties.Data.Properties
	ref, _ := sites["call_sites"].Items["$ref"].(string)
	if ref == "" || len(s.Defs) == 0 {
		t.Fatalf("call_sites items = %v, $defs %v: want a $ref into $defs", sites["call_sites"].Items, s.Defs)
	}
	for _, k := range []string{"import_sites", "doc_references", "test_references", "string_literals", "definitions"} {
		if got := sites[k].Items["$ref"]; got != ref {
			t.Errorf("%s items $ref = %v, want %s", k, got, ref)
		}
	}
	if _, ok := s.Defs[ref[len("#/$defs/"):]]; !ok {
		t.Errorf("%s is not in $defs %v", ref, s.Defs)
	}
	// The registered type's schema itself still lists its properties.
	named, _ := namedSchema(typ(query.RenameSite{}))
	if named["properties"] == nil {
		t.Errorf("the shared schema of query.RenameSite was edited: %v", named)
	}
	if again := rename.OutputSchema(); string(again) != string(rename.OutputSchema()) {
		t.Errorf("output schema not stable")
	}
}
