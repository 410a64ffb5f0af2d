package state

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/cos-dev/cos/eventlog"
)

// Events that change no node (tasks, metrics, evidence) leave the search
// index's on-disk checkpoint where it is, but the index still reflects
// every one of them: health must report no search lag for them (the Hub's
// health page said "1515 events behind" on a board with nothing behind).
func TestView_HealthSearchLagIgnoresEventsWithoutNodes(t *testing.T) {
	s := openState(t, "", nil)
	upsert(t, s, "code:function:a.go::A")
	// Applied (and the node indexed) before the events without nodes.
	if err := s.Read(context.Background(), func(View) {}); err != nil {
		t.Fatal(err)
	}
	for i := range 25 {
		data, _ := json.Marshal(map[string]any{"n": i})
		if _, err := s.Append(context.Background(), eventlog.AppendRequest{Stream: "metrics",
			Events: []eventlog.Payload{{Type: "metric.recorded", Data: data}}}); err != nil {
			t.Fatalf("Append: %v", err)
		}
	}
	var h Health
	var herr error
	if err := s.Read(context.Background(), func(v View) { h, herr = v.Health(context.Background()) }); err != nil {
		t.Fatal(err)
	}
	if herr != nil {
		t.Fatal(herr)
	}
	if h.Search == nil || h.Search.Lag != 0 {
		t.Fatalf("search health %+v at head %d: want lag 0 (the index reflects every event; only its checkpoint lags)", h.Search, h.Log.HeadSeq)
	}
}
