package eventlog_test

import (
	"slices"
	"testing"

	"github.com/cos-dev/cos/eventlog"
)

// TestMatchIntent: the intent of every request that could have written a
// committed set of events matches it — whatever its CAS conditions, its key
// order, a stream named or allocated — and the intent of any other request
// (other data, another type, another stream, a condition the events could
// not have met, one event fewer) does not.
func TestMatchIntent(t *testing.T) {
	const h1 = "1111111111111111111111111111111111111111111111111111111111111111"
	payload := func(data string) []eventlog.Payload {
		return []eventlog.Payload{{Type: "task.updated", Data: []byte(data)}}
	}
	intent := func(r eventlog.AppendRequest) [32]byte {
		t.Helper()
		r.RequestID = "r"
		p, err := eventlog.Prepare(r, eventlog.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		return p.Intent
	}
	named := eventlog.Committed{Stream: "task:T-1", Before: 4, BeforeHash: h1, Events: payload(`{"a":1,"b":[2,3.50]}`)}
	fresh := eventlog.Committed{Stream: "task:TASK-007", Events: payload(`{"title":"x"}`)}
	digits := eventlog.Committed{Stream: "run1001", Events: payload(`{}`)}
	cases := []struct {
		name       string
		req        eventlog.AppendRequest
		c          eventlog.Committed
		ok         bool
		wantPrefix string
	}{
		{"plain", eventlog.AppendRequest{Stream: "task:T-1", Events: payload(`{"a":1,"b":[2,3.50]}`)}, named, true, ""},
		{"keys reordered, spaced", eventlog.AppendRequest{Stream: "task:T-1", Events: payload(`{ "b": [2, 3.50], "a": 1 }`)}, named, true, ""},
		{"expected revision", eventlog.AppendRequest{Stream: "task:T-1", Expect: eventlog.AtRevision(4), Events: payload(`{"a":1,"b":[2,3.50]}`)}, named, true, ""},
		{"expected revision and hash", eventlog.AppendRequest{Stream: "task:T-1", Expect: eventlog.AtRevision(4), ExpectedHash: h1, Events: payload(`{"a":1,"b":[2,3.50]}`)}, named, true, ""},
		{"other data", eventlog.AppendRequest{Stream: "task:T-1", Events: payload(`{"a":2,"b":[2,3.50]}`)}, named, false, ""},
		{"number written otherwise", eventlog.AppendRequest{Stream: "task:T-1", Events: payload(`{"a":1,"b":[2,3.5]}`)}, named, false, ""},
		{"other type", eventlog.AppendRequest{Stream: "task:T-1", Events: []eventlog.Payload{{Type: "task.created", Data: []byte(`{"a":1,"b":[2,3.50]}`)}}}, named, false, ""},
		{"other stream", eventlog.AppendRequest{Stream: "task:T-2", Events: payload(`{"a":1,"b":[2,3.50]}`)}, named, false, ""},
		{"revision the events did not follow", eventlog.AppendRequest{Stream: "task:T-1", Expect: eventlog.AtRevision(3), Events: payload(`{"a":1,"b":[2,3.50]}`)}, named, false, ""},
		{"hash the events did not follow", eventlog.AppendRequest{Stream: "task:T-1", ExpectedHash: "2222222222222222222222222222222222222222222222222222222222222222", Events: payload(`{"a":1,"b":[2,3.50]}`)}, named, false, ""},
		{"one event more", eventlog.AppendRequest{Stream: "task:T-1", Events: append(payload(`{"a":1,"b":[2,3.50]}`), payload(`{}`)...)}, named, false, ""},
		{"allocated", eventlog.AppendRequest{StreamPrefix: "task:TASK-", Events: payload(`{"title":"x"}`)}, fresh, true, "task:TASK-"},
		{"allocated, no stream expected", eventlog.AppendRequest{StreamPrefix: "task:TASK-", Expect: eventlog.NoStream(), Events: payload(`{"title":"x"}`)}, fresh, true, "task:TASK-"},
		{"named new stream", eventlog.AppendRequest{Stream: "task:TASK-007", Expect: eventlog.NoStream(), Events: payload(`{"title":"x"}`)}, fresh, true, ""},
		{"another prefix", eventlog.AppendRequest{StreamPrefix: "task:TASK-0", Events: payload(`{"title":"x"}`)}, fresh, false, ""},
		{"prefix ending in a digit", eventlog.AppendRequest{StreamPrefix: "run1", Events: payload(`{}`)}, digits, true, "run1"},
		{"allocation on an existing stream", eventlog.AppendRequest{StreamPrefix: "task:T-", Events: payload(`{"a":1,"b":[2,3.50]}`)}, eventlog.Committed{Stream: "task:T-001", Before: 1, BeforeHash: h1, Events: payload(`{"a":1,"b":[2,3.50]}`)}, false, ""},
	}
	for _, c := range cases {
		prefix, ok, err := eventlog.MatchIntent(intent(c.req), c.c)
		if err != nil || ok != c.ok || prefix != c.wantPrefix {
			t.Errorf("%s: MatchIntent = %q, %t, %v; want %q, %t", c.name, prefix, ok, err, c.wantPrefix, c.ok)
		}
	}
}

func TestAllocationPrefixes(t *testing.T) {
	for name, want := range map[string][]string{
		"task:TASK-007":  {"task:TASK-"},
		"run1001":        {"run1", "run"},
		"x0123":          {"x0"},
		"x1234":          {"x1", "x"},
		"task:TASK-12":   nil,
		"123":            nil,
		"task:T-1000000": {"task:T-"},
		"x000":           nil,
	} {
		if got := eventlog.AllocationPrefixes(name); !slices.Equal(got, want) {
			t.Errorf("AllocationPrefixes(%q) = %q, want %q", name, got, want)
		}
	}
}
