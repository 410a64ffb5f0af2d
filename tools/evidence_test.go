package tools

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cos-dev/cos/projections/evidence"
	"github.com/cos-dev/cos/state"
)

func TestSuperviseRecordOutput_RecordsAndExports(t *testing.T) {
	dir := t.TempDir()
	s := openServer(t, dir)
	records := []struct{ args, kind, role string }{
		{`{"session_id":"s1","role":"planner","output":{"summary":"split","steps":["a","b"]}}`, "output", "planner"},
		{`{"session_id":"s1","role":"tester","output":"{\"passed\":3,\"failed\":0}"}`, "output", "tester"},
		{`{"session_id":"s1","kind":"backtrack","output":{"reason":"wrong parser"}}`, "backtrack", ""},
		{`{"session_id":"s1","kind":"discovery","output":{"summary":"cache is cold"}}`, "discovery", ""},
		{`{"session_id":"s1","kind":"degraded_formula","output":{"formula":"f1","reason":"no tests"}}`, "degraded_formula", ""},
	}
	var last envOf
	for i, r := range records {
		last = okEnv(t, call(t, s, "cos_supervise_record_output", r.args), r.args)
		d := last.Data
		if d["kind"] != r.kind || d["count"].(float64) != float64(i+1) || d["slot_count"].(float64) != 1 || d["replayed"] != false {
			t.Fatalf("record %d answered %v", i, d)
		}
		if d["meta"].(map[string]any)["layer"] != "audit" {
			t.Fatalf("meta = %v", d["meta"])
		}
	}
	path := last.Data["export_path"].(string)
	if want := evidence.ExportPath(filepath.Join(dir, evidence.DefaultAgentSubdir), "s1"); path != want {
		t.Fatalf("export path %s, want %s (COS_AGENT_DIR unset)", path, want)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	exported := bundleOf(t, json.RawMessage(raw))
	e := okEnv(t, call(t, s, "cos_evidence_bundle", `{"session_id":"s1"}`), "bundle")
	read := bundleOf(t, e.Data["bundle"])
	if canonJSON(t, exported) != canonJSON(t, read) {
		t.Fatalf("export differs from the bundle read back:\n%s\n%s", raw, canonJSON(t, read))
	}
	if len(read.Roles["planner"]) != 1 || len(read.Roles["tester"]) != 1 || len(read.Backtracks) != 1 ||
		len(read.Discoveries) != 1 || len(read.DegradedFormulas) != 1 || read.Revision != uint64(len(records)) {
		t.Fatalf("bundle = %+v", read)
	}
	for _, role := range s.roles.RoleIDs() {
		if _, ok := read.Roles[role]; !ok {
			t.Errorf("no slot for registered role %s", role)
		}
	}
	if evs := streamEvents(t, s, evidence.Stream("s1")); len(evs) != len(records) || read.Hash != evs[len(evs)-1].Hash {
		t.Fatalf("stream holds %d events; bundle hash %s", len(evs), read.Hash)
	}
}

func TestSuperviseRecordOutput_AgentDirOverride(t *testing.T) {
	agent := t.TempDir()
	t.Setenv(evidence.AgentDirEnv, agent)
	s := openServer(t, "")
	e := okEnv(t, call(t, s, "cos_supervise_record_output", `{"session_id":"s2","kind":"discovery","output":{"summary":"x"}}`), "record")
	if want := evidence.ExportPath(agent, "s2"); e.Data["export_path"] != want {
		t.Fatalf("export path %v, want %s", e.Data["export_path"], want)
	}
	if _, err := os.Stat(evidence.ExportPath(agent, "s2")); err != nil {
		t.Fatal(err)
	}
}

func TestSuperviseRecordOutput_Errors(t *testing.T) {
	s := openServer(t, "")
	cases := []struct {
		name, args, code, field, inMsg string
	}{
		{"missing required field", `{"session_id":"s","role":"planner","output":{"summary":"x"}}`, "E_ARGUMENT", "output", "steps"},
		{"unknown output field", `{"session_id":"s","role":"planner","output":{"summary":"x","steps":["a"],"mood":"ok"}}`, "E_ARGUMENT", "output", "mood"},
		{"wrong type", `{"session_id":"s","role":"tester","output":{"passed":"3","failed":0}}`, "E_ARGUMENT", "output", "passed"},
		{"unknown role", `{"session_id":"s","role":"analyst","output":{"summary":"x"}}`, "E_ARGUMENT", "role", "planner"},
		{"role on a backtrack", `{"session_id":"s","kind":"backtrack","role":"planner","output":{"reason":"x"}}`, "E_ARGUMENT", "kind", "backtrack"},
		{"bad session", `{"session_id":"../etc","role":"planner","output":{"summary":"x","steps":["a"]}}`, "E_ARGUMENT", "session_id", "session"},
		{"bad kind", `{"session_id":"s","kind":"note","output":{"summary":"x"}}`, "E_ARGUMENT", "kind", "backtrack"},
		{"output not an object", `{"session_id":"s","role":"planner","output":[1]}`, "E_ARGUMENT", "output", ""},
		{"empty request_id", `{"session_id":"s","kind":"discovery","output":{"summary":"x"},"request_id":""}`, "E_REQUEST_ID", "request_id", "Nonempty request_id required"},
	}
	for _, c := range cases {
		e := failEnv(t, call(t, s, "cos_supervise_record_output", c.args), c.code, c.name)
		if e.Error.Details["field"] != c.field {
			t.Errorf("%s: details.field = %v, want %s (%s)", c.name, e.Error.Details["field"], c.field, e.Error.Message)
		}
		if !strings.Contains(e.Error.Message, c.inMsg) {
			t.Errorf("%s: message %q lacks %q", c.name, e.Error.Message, c.inMsg)
		}
		if c.code == "E_ARGUMENT" && e.Error.Details["example"] == nil {
			t.Errorf("%s: no corrected example: %v", c.name, e.Error.Details)
		}
	}
	if n := len(allEvents(t, s)); n != 0 {
		t.Fatalf("refused records wrote %d events", n)
	}
	failEnv(t, call(t, s, "cos_evidence_bundle", `{"session_id":"never"}`), "E_NOT_FOUND", "no bundle")
	failEnv(t, call(t, s, "cos_evidence_bundle", `{"session_id":".hidden"}`), "E_ARGUMENT", "bad session")
}

func TestSuperviseRecordOutput_RequestID(t *testing.T) {
	s := openServer(t, "")
	args := `{"session_id":"s","role":"planner","output":{"steps":["a"],"summary":"x"},"request_id":"ev-1"}`
	first := okEnv(t, call(t, s, "cos_supervise_record_output", args), "first")
	// The same intent with its keys in another order is the same intent.
	again := okEnv(t, call(t, s, "cos_supervise_record_output", `{"request_id":"ev-1","session_id":"s","role":"planner","output":{"summary":"x","steps":["a"]}}`), "resend")
	if again.Data["replayed"] != true || again.Data["seq"] != first.Data["seq"] || again.Data["count"].(float64) != 1 {
		t.Fatalf("resend: %v", again.Data)
	}
	failEnv(t, call(t, s, "cos_supervise_record_output", strings.Replace(args, `"x"`, `"y"`, 1)), "E_REQUEST_REUSE", "changed output")
	if n := len(allEvents(t, s)); n != 1 {
		t.Fatalf("%d records, want 1", n)
	}
}

func TestEvidenceTools_ModuleGate(t *testing.T) {
	dir := t.TempDir()
	s := openServer(t, dir)
	if err := state.SetModule(dir, "evidence", false); err != nil {
		t.Fatal(err)
	}
	e := call(t, s, "cos_supervise_record_output", `{"session_id":"s","kind":"discovery","output":{"summary":"x"}}`)
	if e.OK || e.Error.Category != "module_disabled" || !strings.Contains(e.Error.Message, "cos module enable evidence") {
		t.Fatalf("disabled: %+v", e)
	}
	if _, err := os.Stat(filepath.Join(dir, evidence.DefaultAgentSubdir)); !os.IsNotExist(err) {
		t.Fatalf("a disabled module exported: %v", err)
	}
	if err := state.SetModule(dir, "evidence", true); err != nil {
		t.Fatal(err)
	}
	okEnv(t, call(t, s, "cos_supervise_record_output", `{"session_id":"s","kind":"discovery","output":{"summary":"x"}}`), "enabled again")
}

// The description names, for each role and kind, the output fields the
// default registry requires (it named the output classes, "planner: plan",
// which read as a field the call then refused).
func TestSuperviseRecordOutput_DescriptionNamesRequiredFields(t *testing.T) {
	var desc string
	for _, tl := range evidenceTools() {
		if tl.Name == "cos_supervise_record_output" {
			desc = tl.Description
		}
	}
	reg := evidence.DefaultRegistry()
	names := map[string]string{evidence.KindBacktrack: evidence.KindBacktrack, evidence.KindDiscovery: evidence.KindDiscovery, evidence.KindDegradedFormula: evidence.KindDegradedFormula}
	for role, class := range reg.Roles {
		names[role] = class
	}
	for name, class := range names {
		var req []string
		for f, spec := range reg.Classes[class].Fields {
			if spec.Required {
				req = append(req, f)
			}
		}
		i := strings.Index(desc, name+" {")
		if i < 0 {
			t.Errorf("description does not give %s its fields: %s", name, desc)
			continue
		}
		said := desc[i+len(name)+2:]
		said = said[:strings.Index(said, "}")]
		got := strings.Split(said, ", ")
		slices.Sort(got)
		slices.Sort(req)
		if !slices.Equal(got, req) {
			t.Errorf("%s: description says {%s}, the registry requires %v", name, said, req)
		}
	}
}
