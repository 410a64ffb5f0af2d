package hub_test

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/cos-dev/cos/hub"
	"github.com/cos-dev/cos/indexing"
	"github.com/cos-dev/cos/internal/testutil"
	"github.com/cos-dev/cos/state"
	"github.com/cos-dev/cos/tools"
	"github.com/nats-io/nats.go/jetstream"
)

// TestAPIHealth_LostStreamStillAnswers: a Hub whose NATS stream is
// damaged by a foreign message, then deleted, keeps answering
// /api/health — 200, with integrity.ok false (and seen_seq once the
// stream is gone) — rather than null, or ok true over a log that is not
// there.
func TestAPIHealth_LostStreamStillAnswers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a NATS server")
	}
	js := testutil.StartJetStream(t, testutil.JetStreamOptions{})
	ctx := context.Background()
	st, err := state.Open(ctx, state.Options{Dir: t.TempDir(), Store: js.URL() + "/HUB", CreateStream: true, NATS: "off", NoBackgroundSnapshots: true})
	if err != nil {
		t.Fatal(err)
	}
	ix, err := indexing.New(st, indexing.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := tools.New(st, ix, tools.Options{Version: "test"})
	h, err := hub.New(r, st, hub.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h.Handler())
	f := &liveHub{st: st, r: r, h: h, srv: srv}
	t.Cleanup(func() {
		h.Close()
		srv.Close()
		_ = st.Close(ctx)
	})
	f.call(t, "cos_task_create", `{"title":"a"}`)
	f.call(t, "cos_task_create", `{"title":"b"}`)

	health := func(what string) map[string]any {
		t.Helper()
		resp, doc := f.do(t, "GET", "/api/health", "", nil)
		data, _ := doc["data"].(map[string]any)
		if resp.StatusCode != 200 || data == nil {
			t.Fatalf("%s: /api/health = %d %v; want 200 with the health", what, resp.StatusCode, doc)
		}
		integ, _ := data["integrity"].(map[string]any)
		if integ == nil || integ["ok"] != false {
			t.Fatalf("%s: /api/health integrity = %v; want ok false", what, data["integrity"])
		}
		return integ
	}

	nc := js.Connect(0)
	if err := nc.Publish("cos.hub.log.x", []byte(`{"seq":3}`)); err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	if integ := health("a foreign message at the head"); integ["first_bad_seq"] != 3.0 {
		t.Errorf("integrity = %v; want first_bad_seq 3", integ)
	}

	jsc, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	if err := jsc.DeleteStream(ctx, "HUB"); err != nil {
		t.Fatal(err)
	}
	if integ := health("the stream deleted"); integ["seen_seq"] == nil {
		t.Errorf("integrity = %v; want seen_seq", integ)
	}
}
