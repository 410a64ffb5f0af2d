package hub

import "time"

// EventStreams returns how many /api/events streams are open, for the
// tests of package hub_test.
func (h *Hub) EventStreams() int { return h.eventStreams() }

// WithClock returns o with now as the clock of login sessions and the
// login throttle.
func WithClock(o Options, now func() time.Time) Options {
	o.now = now
	return o
}

// ClientAddr is the login throttle's key for a remote address.
func ClientAddr(remote string) string { return clientAddr(remote) }
