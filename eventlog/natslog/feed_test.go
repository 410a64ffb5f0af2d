package natslog_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/eventlog/natslog"
)

// TestLog_LostRoundsCatchUpWithoutRequests: two handles take turns on one
// stream, each turn one handle writing 40 events and the other losing a
// round to them. After its first lost round a handle catches up from its
// feed, to the last sequence the refused publish named: its lost rounds
// cost no JetStream API request (no stream info, no consumer created and
// deleted per catch-up, no message gets), and both handles still agree on
// the chain.
func TestLog_LostRoundsCatchUpWithoutRequests(t *testing.T) {
	srv, url := startJetStream(t)
	name := newStreamName()
	a, b := openLog(t, url, name, natslog.Options{}), openLog(t, url, name, natslog.Options{})
	ctx := context.Background()
	turn := func(round int) {
		t.Helper()
		var reqs []eventlog.AppendRequest
		for i := range 40 {
			reqs = append(reqs, one("b", fmt.Sprintf(`{"r":%d,"i":%d}`, round, i)))
		}
		res, err := b.Append(ctx, reqs...)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			if r.Err != nil {
				t.Fatal(r.Err)
			}
		}
		mustAppend(t, a, one("a", fmt.Sprintf(`{"r":%d}`, round))) // loses a round to b's 40 events
	}
	apiTotal := func() uint64 {
		t.Helper()
		info, err := srv.Jsz(nil)
		if err != nil {
			t.Fatal(err)
		}
		return info.API.Total
	}
	turn(0) // both handles lose a first round and start their feeds
	const rounds = 10
	before, lostBefore := apiTotal(), a.Stats().Retries+b.Stats().Retries
	for round := 1; round <= rounds; round++ {
		turn(round)
	}
	requests, lost := apiTotal()-before, a.Stats().Retries+b.Stats().Retries-lostBefore
	if lost < rounds {
		t.Fatalf("the handles lost %d rounds in %d turns, want at least %d: the test does not exercise catch-up", lost, rounds, rounds)
	}
	if requests > 2 {
		t.Fatalf("%d lost rounds cost %d JetStream API requests, want at most 2 (a feed started again)", lost, requests)
	}
	want := uint64((rounds + 1) * 41)
	for _, l := range []*natslog.Log{a, b} {
		if n, err := l.Verify(ctx); err != nil || n != want {
			t.Fatalf("verify: %d events, %v; want %d", n, err, want)
		}
	}
}
