package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/internal/testutil"
)

// TestMigrate_ReceiptsTravelWithTheLog: receipts of request ids made on a
// bbolt log are copied by `cos migrate` into a stream, and from the
// stream into a new file: on each copy a retry of a request made before
// the migration — `cos log append` with its request id, a task created
// through `cos call` with one — is answered replayed, and nothing is
// written twice. Before, migrate dropped the receipts and each retry
// wrote a second event.
func TestMigrate_ReceiptsTravelWithTheLog(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a NATS server")
	}
	js := testutil.StartJetStream(t, testutil.JetStreamOptions{})
	dir := t.TempDir()
	appendArgs := []string{"log", "append", "--stream", "doc:a", "--type", "doc.created", "--data", `{"b":2,"a":1}`, "--request-id", "append-1"}
	first := logAppend(t, dir, appendArgs...)
	if env := callEnv(t, dir, "cos_task_create", `{"title":"before the migration","request_id":"create-1"}`); !env.OK {
		t.Fatalf("create: %+v", env.Error)
	}
	stream := js.URL() + "/MOVED"
	file := filepath.Join(t.TempDir(), "back.db")
	for _, hop := range []struct{ from, to string }{{"", stream}, {stream, file}} {
		args := []string{"migrate", "--to", hop.to, "--json"}
		if hop.from != "" {
			args = append([]string{"--store", hop.from}, args...)
		}
		code, out, stderr := run(t, dir, args...)
		var rep migrateReport
		if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || rep.Receipts != 2 || rep.Events != 2 {
			t.Fatalf("migrate to %s: exit %d, %s %s; want 2 events and 2 receipts", hop.to, code, out, stderr)
		}
		// Each retry on a state folder of its own, as another machine.
		other := t.TempDir()
		again := logAppend(t, other, append([]string{"--store", hop.to}, appendArgs...)...)
		if !again.Replayed || again.FirstSeq != first.FirstSeq || again.Hashes[0] != first.Hashes[0] {
			t.Fatalf("retry of append-1 on %s: %+v; want a replay of seq %d", hop.to, again, first.FirstSeq)
		}
		_, out, stderr = run(t, other, "--store", hop.to, "call", "cos_task_create", `{"title":"before the migration","request_id":"create-1"}`)
		var env testutil.Envelope
		if err := json.Unmarshal([]byte(out), &env); err != nil || !env.OK || env.Data["replayed"] != true {
			t.Fatalf("retry of create-1 on %s: %s %s; want ok and replayed", hop.to, out, stderr)
		}
		if code, out, _ := run(t, other, "--store", hop.to, "log", "head"); code != 0 || strings.Fields(out)[0] != "2" {
			t.Fatalf("head of %s after the retries: %q; want seq 2 (nothing written twice)", hop.to, out)
		}
	}
}

// logAppend runs `cos log append` in dir and decodes its receipt.
func logAppend(t *testing.T, dir string, args ...string) eventlog.Receipt {
	t.Helper()
	code, out, stderr := run(t, dir, args...)
	var rec eventlog.Receipt
	if code != 0 || json.Unmarshal([]byte(out), &rec) != nil {
		t.Fatalf("cos %s: exit %d, %s %s", strings.Join(args, " "), code, out, stderr)
	}
	return rec
}
