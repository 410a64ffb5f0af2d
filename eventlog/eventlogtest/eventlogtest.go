package eventlogtest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/cos-dev/cos/eventlog"
)

// Opener opens the log called name for the test t. The first open of a name
// in a test creates an empty log; opening the same name again in the same
// test — while an earlier handle is still open, or after it was closed —
// gives another handle on that same log, as another process would. The
// Opener fails t itself when it cannot open, and closes every handle it
// returned at t's cleanup (Close is idempotent, so a case may close a
// handle earlier).
type Opener func(t *testing.T, name string) eventlog.Log

// Run runs every case of the contract against the logs open returns, each
// as a subtest <area>/<case>.
func Run(t *testing.T, open Opener) {
	for _, area := range areas {
		t.Run(area.name, func(t *testing.T) {
			for _, c := range area.cases {
				t.Run(c.name, func(t *testing.T) { c.run(t, open) })
			}
		})
	}
}

type testCase struct {
	name string
	run  func(t *testing.T, open Opener)
}

var areas = []struct {
	name  string
	cases []testCase
}{
	{"Append", []testCase{
		{"GaplessSeqRevisionsAndChain", testAppendGaplessSeqRevisionsAndChain},
		{"MultiEventRequestIsOneReceipt", testAppendMultiEventRequestIsOneReceipt},
		{"StaleRevision", testAppendStaleRevision},
		{"FailedRequestDoesNotFailNeighbours", testAppendFailedRequestDoesNotFailNeighbours},
		{"InvalidEvent", testAppendInvalidEvent},
	}},
	{"RequestID", []testCase{
		{"Replay", testRequestIDReplay},
		{"Reuse", testRequestIDReuse},
		{"Limits", testRequestIDLimits},
		{"LookupReceipt", testRequestIDLookupReceipt},
	}},
	{"StreamAllocation", []testCase{
		{"TaskPrefix", testStreamAllocationTaskPrefix},
	}},
	{"Read", []testCase{
		{"Empty", testReadEmpty},
		{"FromSeq", testReadFromSeq},
		{"Stop", testReadStop},
		{"CallbackError", testReadCallbackError},
	}},
	{"Head", []testCase{
		{"Empty", testHeadEmpty},
		{"AfterAppend", testHeadAfterAppend},
	}},
	{"Verify", []testCase{
		{"Chain", testVerifyChain},
	}},
	{"Concurrent", []testCase{
		{"NoLossNoDup", testConcurrentNoLossNoDup},
		{"TwoHandlesCAS", testConcurrentTwoHandlesCAS},
	}},
	{"Reopen", []testCase{
		{"Durable", testReopenDurable},
	}},
	{"Close", []testCase{
		{"IdempotentAndRefuses", testCloseIdempotentAndRefuses},
		{"CommitsAcceptedAppends", testCloseCommitsAcceptedAppends},
	}},
	{"Context", []testCase{
		{"EndedBeforeCall", testContextEndedBeforeCall},
	}},
}

// zeroHash is the prev_hash of the first event and the hash of an empty
// log's head.
var zeroHash = strings.Repeat("0", 64)

func req(stream, typ, data string) eventlog.AppendRequest {
	return eventlog.AppendRequest{Stream: stream, Events: []eventlog.Payload{{Type: typ, Data: json.RawMessage(data)}}}
}

func dataN(i int) string { return fmt.Sprintf(`{"n":%d}`, i) }

// appendOne appends one request and returns its receipt or its error.
func appendOne(ctx context.Context, l eventlog.Log, r eventlog.AppendRequest) (eventlog.Receipt, error) {
	res, err := l.Append(ctx, r)
	if err != nil {
		return eventlog.Receipt{}, err
	}
	if len(res) != 1 {
		return eventlog.Receipt{}, fmt.Errorf("Append of one request returned %d results", len(res))
	}
	return res[0].Receipt, res[0].Err
}

func mustAppend(tb testing.TB, l eventlog.Log, r eventlog.AppendRequest) eventlog.Receipt {
	tb.Helper()
	rec, err := appendOne(context.Background(), l, r)
	if err != nil {
		tb.Fatalf("append %+v: %v", r, err)
	}
	return rec
}

func readAll(tb testing.TB, l eventlog.Log) []eventlog.Event {
	tb.Helper()
	var evs []eventlog.Event
	if err := l.Read(context.Background(), 0, func(ev eventlog.Event) error {
		evs = append(evs, ev)
		return nil
	}); err != nil {
		tb.Fatalf("Read: %v", err)
	}
	return evs
}

func mustHead(tb testing.TB, l eventlog.Log) eventlog.Head {
	tb.Helper()
	h, err := l.Head(context.Background())
	if err != nil {
		tb.Fatalf("Head: %v", err)
	}
	return h
}
