package deploy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/eventlog/natslog"
	"github.com/cos-dev/cos/state"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// TestDeploy_PermissionsKeepOthersOffTheLog starts a JetStream server whose
// configuration includes nats/permissions.conf and checks the boundary it
// draws: cos, connecting as user cos (COS_NATS_USER, COS_NATS_PASSWORD),
// creates the stream, appends and replays; the reader reads and verifies
// the log through cos, but its publish on the log's subjects — a forged
// event — is refused and stores nothing, and it cannot delete the stream.
func TestDeploy_PermissionsKeepOthersOffTheLog(t *testing.T) {
	dir := t.TempDir()
	raw, err := os.ReadFile("nats/permissions.conf")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "permissions.conf"), raw, 0o600); err != nil {
		t.Fatal(err)
	}
	port := freePorts(t, 1)[0]
	conf := fmt.Sprintf("listen: 127.0.0.1:%d\njetstream { store_dir: %q }\ninclude permissions.conf\n", port, filepath.Join(dir, "js"))
	if err := os.WriteFile(filepath.Join(dir, "node.conf"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("COS_NATS_PASSWORD", "cos-secret")
	t.Setenv("READER_NATS_PASSWORD", "reader-secret")
	o, err := server.ProcessConfigFile(filepath.Join(dir, "node.conf"))
	if err != nil {
		t.Fatal(err)
	}
	o.NoLog, o.NoSigs = true, true
	srv, err := server.NewServer(o)
	if err != nil {
		t.Fatal(err)
	}
	go srv.Start()
	t.Cleanup(func() { srv.Shutdown(); srv.WaitForShutdown() })
	if !srv.ReadyForConnections(30 * time.Second) {
		t.Fatal("the server did not start")
	}
	addr := fmt.Sprintf("nats://127.0.0.1:%d", port)
	store := addr + "/COS"
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	// cos, as user cos.
	t.Setenv(natslog.EnvUser, "cos")
	t.Setenv(natslog.EnvPassword, "cos-secret")
	l, err := state.OpenLog(ctx, t.TempDir(), state.LogOptions{Store: store, CreateStream: true})
	if err != nil {
		t.Fatalf("cos opens the log as user cos: %v", err)
	}
	defer l.Close(context.Background())
	req := eventlog.AppendRequest{StreamPrefix: "task:TASK-", RequestID: "r-1",
		Events: []eventlog.Payload{{Type: "task.created", Data: json.RawMessage(`{"title":"by cos"}`)}}}
	rec, err := state.AppendOne(ctx, l, req)
	if err != nil {
		t.Fatalf("append as cos: %v", err)
	}
	if again, err := state.AppendOne(ctx, l, req); err != nil || !again.Replayed {
		t.Fatalf("retry as cos: %+v, %v; want a replay", again, err)
	}

	// The reader reads through cos ...
	t.Setenv(natslog.EnvUser, "reader")
	t.Setenv(natslog.EnvPassword, "reader-secret")
	r, err := state.OpenLog(ctx, t.TempDir(), state.LogOptions{Store: store, ReadOnly: true})
	if err != nil {
		t.Fatalf("open the log as the reader: %v", err)
	}
	defer r.Close(context.Background())
	if n, err := r.Verify(ctx); err != nil || n != 1 {
		t.Fatalf("Verify as the reader = %d, %v; want 1", n, err)
	}
	// ... but cannot write into the log or remove it.
	nc, err := nats.Connect(addr, nats.UserInfo("reader", "reader-secret"))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	pctx, pcancel := context.WithTimeout(ctx, time.Second)
	defer pcancel()
	m := nats.NewMsg("cos.cos.log." + natslog.EncodeToken("task:TASK-002"))
	m.Data = []byte(`{"seq":2}`)
	m.Header.Set("Cos-Intent", "00")
	if _, err := js.PublishMsg(pctx, m); err == nil {
		t.Fatal("the reader published on the log's subjects")
	}
	// A request the permissions refuse is never answered.
	dctx, dcancel := context.WithTimeout(ctx, time.Second)
	defer dcancel()
	if err := js.DeleteStream(dctx, "COS"); err == nil {
		t.Fatal("the reader deleted the stream")
	}
	if _, err := js.Stream(ctx, "COS"); err != nil {
		t.Fatalf("the stream after the reader's delete: %v", err)
	}
	if h, err := r.Head(ctx); err != nil || h.Seq != rec.LastSeq {
		t.Fatalf("head after the reader's attempts = %+v, %v; want seq %d", h, err, rec.LastSeq)
	}
}
