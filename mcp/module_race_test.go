package mcp

import (
	"os/exec"
	"strings"
	"sync"
	"testing"
)

// Calls racing module switches are always answered by the tool (a result,
// E_MODULE_DISABLED while the module is off), never by a protocol error
// for an unknown tool.
func TestResources_CallsDuringModuleSwitches(t *testing.T) {
	root, state := liveFixture(t)
	c := liveStart(t, state, root, "--nats", "off")
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				_ = exec.Command(cosBin, "module", "enable", "tasks", "--state-dir", state).Run()
				return
			default:
			}
			verb := "disable"
			if i%2 == 1 {
				verb = "enable"
			}
			_ = exec.Command(cosBin, "module", verb, "tasks", "--state-dir", state).Run()
		}
	})
	disabled := 0
	for i := 0; i < 300; i++ {
		out := string(c.request("tools/call", map[string]any{"name": "cos_task_board", "arguments": map[string]any{}}))
		if !strings.Contains(out, `"result"`) {
			close(stop)
			wg.Wait()
			t.Fatalf("call %d during module switches: %s", i, out)
		}
		if strings.Contains(out, "E_MODULE_DISABLED") {
			disabled++
		}
	}
	close(stop)
	wg.Wait()
	t.Logf("%d of 300 calls met the module switched off", disabled)
}
