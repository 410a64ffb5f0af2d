package hub

// EventStreams returns how many /api/events streams are open, for the
// tests of package hub_test.
func (h *Hub) EventStreams() int { return h.eventStreams() }
