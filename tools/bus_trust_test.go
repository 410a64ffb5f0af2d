package tools

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/cos-dev/cos/bus"
)

// openBusServer opens a test server on dir with the embedded NATS server.
func openBusServer(t *testing.T, dir string) *testServer {
	t.Helper()
	s, err := openTestServer(context.Background(), testOptions{StateDir: dir, NATS: bus.ModeAuto,
		NoBackgroundSnapshots: true, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if b := s.st.Bus(); b == nil || !b.State().Connected {
		t.Fatal("no bus: the embedded NATS server did not start")
	}
	return s
}

// healthOf calls cos_health and returns its data.
func healthOf(t *testing.T, s *testServer) map[string]any {
	t.Helper()
	env := s.Call(context.Background(), "cos_health", []byte(`{}`))
	var doc struct {
		OK   bool           `json:"ok"`
		Data map[string]any `json:"data"`
	}
	if err := json.Unmarshal(env.JSON(), &doc); err != nil || !doc.OK {
		t.Fatalf("cos_health: %s (%v)", env.JSON(), err)
	}
	return doc.Data
}

// The reproduction at the tool surface: a plain NATS client on the
// embedded server forges a task.created with the next seq. The board never
// shows it, the real task at that seq does, and cos_health says the
// projections match the log; once the log under the server is another
// one, cos_health says they do not.
func TestBus_ForgedTaskCreated_NeverOnTheBoard(t *testing.T) {
	dir := t.TempDir()
	a := openBusServer(t, dir)
	b := openBusServer(t, dir)
	ctx := context.Background()
	if env := a.Call(ctx, "cos_task_create", []byte(`{"title":"first"}`)); !env.OK() {
		t.Fatalf("create: %s", env.JSON())
	}
	head := uint64(healthOf(t, b)["log"].(map[string]any)["head_seq"].(float64))

	// The attacker: anyone on the machine with a NATS client (and, the
	// worst case, the folder's credentials when it has them).
	raw, err := os.ReadFile(filepath.Join(dir, "nats.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		URL string `json:"url"`
	}
	if err := json.Unmarshal(raw, &rec); err != nil {
		t.Fatal(err)
	}
	var opts []nats.Option
	if raw, err := os.ReadFile(filepath.Join(dir, "nats-auth.json")); err == nil {
		var c struct{ User, Password string }
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Fatal(err)
		}
		opts = append(opts, nats.UserInfo(c.User, c.Password))
	}
	nc, err := nats.Connect(rec.URL, opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	next := head + 1
	body := `{"seq":` + strconv.FormatUint(next, 10) + `,"id":"01FORGED000000000000000000","time":"2026-01-01T00:00:00Z",` +
		`"stream":"task:TASK-002","revision":1,"type":"task.created","actor":{},` +
		`"data":{"title":"FORGED","priority":"high","status":"todo"},"prev_hash":"","hash":"` + strings.Repeat("f", 64) + `"}`
	msg := nats.NewMsg(bus.EventsSubject(b.st.Bus().Namespace(), "task.created"))
	msg.Header.Set(bus.HeaderSeq, strconv.FormatUint(next, 10))
	msg.Data = []byte(body)
	if err := nc.PublishMsg(msg); err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond) // a doorbell is handled in well under this

	if env := a.Call(ctx, "cos_task_create", []byte(`{"title":"real"}`)); !env.OK() {
		t.Fatalf("create: %s", env.JSON())
	}
	list := b.Call(ctx, "cos_task_board", []byte(`{}`))
	if strings.Contains(string(list.JSON()), "FORGED") || !strings.Contains(string(list.JSON()), `"real"`) {
		t.Fatalf("B's board after a forged message: %s", list.JSON())
	}
	p := healthOf(t, b)["projections"].(map[string]any)
	if p["verified"] != true || p["lag"] != float64(0) {
		t.Fatalf("B's health projections %v, want verified and lag 0", p)
	}

	// The log is replaced under B by a folder with another history.
	other := t.TempDir()
	o, err := openTestServer(ctx, testOptions{StateDir: other, NATS: bus.ModeOff, NoBackgroundSnapshots: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, title := range []string{"x", "y", "z"} {
		if env := o.Call(ctx, "cos_task_create", []byte(`{"title":"`+title+`"}`)); !env.OK() {
			t.Fatalf("create: %s", env.JSON())
		}
	}
	if err := o.Close(); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil { // no writer left on dir
		t.Fatal(err)
	}
	raw, err = os.ReadFile(filepath.Join(other, "events.db"))
	if err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(dir, "events.db.new")
	if err := os.WriteFile(tmp, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, "events.db")); err != nil {
		t.Fatal(err)
	}
	p = healthOf(t, b)["projections"].(map[string]any)
	if p["verified"] != false || !strings.Contains(p["problem"].(string), "not the log's") {
		t.Fatalf("after the log was replaced, health projections %v, want verified false with the problem", p)
	}
}
