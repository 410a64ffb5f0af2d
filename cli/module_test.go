package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestModule_DisableGatesTools(t *testing.T) {
	dir := t.TempDir()
	if code, out, _ := run(t, dir, "module", "list"); code != 0 || !strings.Contains(out, "graph\tenabled") {
		t.Fatalf("module list: %d %q", code, out)
	}
	if code, _, errs := run(t, dir, "module", "disable", "graph"); code != 0 {
		t.Fatalf("disable: %s", errs)
	}
	code, out, _ := run(t, dir, "call", "cos_graph_resolve", `{"q":"x"}`)
	var env struct {
		OK    bool
		Error struct{ Category, Code, Message string }
	}
	if err := json.Unmarshal([]byte(out), &env); err != nil {
		t.Fatalf("envelope %q: %v", out, err)
	}
	if code != ExitError || env.OK || env.Error.Category != "module_disabled" || !strings.Contains(env.Error.Message, "cos module enable graph") {
		t.Fatalf("call with graph disabled: exit %d %+v", code, env)
	}
	run(t, dir, "module", "enable", "graph")
	if _, out, _ := run(t, dir, "call", "cos_graph_resolve", `{"q":"x"}`); strings.Contains(out, "module_disabled") {
		t.Fatalf("still disabled after enable: %s", out)
	}
	if code, _, errs := run(t, dir, "module", "disable", "nope"); code != ExitUsage || !strings.Contains(errs, "unknown module") {
		t.Fatalf("unknown module: %d %q", code, errs)
	}
}
