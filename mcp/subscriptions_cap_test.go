package mcp

import (
	"fmt"
	"strings"
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
