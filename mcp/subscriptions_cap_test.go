package mcp

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// A session holds at most MaxSubscriptions: one more is refused with an
// error saying so (and nothing is recorded), a URI it already holds is not
// one more, and an unsubscribe makes room.
func TestResources_SubscriptionsPerSessionAreBounded(t *testing.T) {
	root, state := liveFixture(t)
	c := liveStart(t, state, root, "--nats", "off")
	sub := func(uri string) string {
		t.Helper()
		return string(c.request("resources/subscribe", map[string]any{"uri": uri}))
	}
	uris := []string{"cos://board", "cos://health"}
	for i := 1; len(uris) < MaxSubscriptions; i++ {
		uris = append(uris, fmt.Sprintf("cos://task/TASK-%03d", i))
	}
	for _, u := range uris {
		if out := sub(u); !strings.Contains(out, `"result"`) {
			t.Fatalf("subscribe %s: %s", u, out)
		}
	}
	out := sub("cos://evidence/sess-42")
	if !strings.Contains(out, `"error"`) || !strings.Contains(out, "most subscriptions") || !strings.Contains(out, "-32602") {
		t.Fatalf("subscription %d: %s, want an error naming the limit", MaxSubscriptions+1, out)
	}
	if out := sub("cos://board"); !strings.Contains(out, `"result"`) {
		t.Fatalf("subscribing again to a held URI: %s", out)
	}
	if out := string(c.request("resources/unsubscribe", map[string]any{"uri": "cos://health"})); !strings.Contains(out, `"result"`) {
		t.Fatalf("unsubscribe: %s", out)
	}
	if out := sub("cos://evidence/sess-42"); !strings.Contains(out, `"result"`) {
		t.Fatalf("after an unsubscribe: %s", out)
	}
}

// Subscribes sent in one burst, without waiting for the answers, count
// against the limit as they are read: exactly MaxSubscriptions succeed.
func TestResources_SubscriptionBurstIsBounded(t *testing.T) {
	root, state := liveFixture(t)
	c := liveStart(t, state, root, "--nats", "off")
	const n = MaxSubscriptions + 20
	outs := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			outs[i] = string(c.request("resources/subscribe", map[string]any{"uri": fmt.Sprintf("cos://task/TASK-%04d", i+1)}))
		})
	}
	wg.Wait()
	ok, refused := 0, 0
	for _, out := range outs {
		switch {
		case strings.Contains(out, `"result"`):
			ok++
		case strings.Contains(out, "most subscriptions"):
			refused++
		default:
			t.Fatalf("unexpected answer: %s", out)
		}
	}
	if ok != MaxSubscriptions || refused != n-MaxSubscriptions {
		t.Fatalf("%d subscribed and %d refused of a burst of %d, want %d and %d", ok, refused, n, MaxSubscriptions, n-MaxSubscriptions)
	}
}
