package tools

import (
	"encoding/json"
	"testing"
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
