package bus

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/nats-io/nats.go"
)

// Peer is one live cos process on the bus, as cos_health lists it.
type Peer struct {
	// ID names one Bus (one process, normally): 16 hex digits.
	ID   string `json:"id"`
	PID  int    `json:"pid"`
	Host string `json:"host"`
	// Started is when the peer opened its bus, UTC.
	Started time.Time `json:"started"`
	// LastSeen is when this process last heard the peer's heartbeat, by
	// this process's clock; for the process itself, now.
	LastSeen time.Time `json:"last_seen"`
	// Position is the peer's log position (its last applied seq) at its
	// last heartbeat.
	Position uint64 `json:"position"`
	// Hosting reports whether the peer ran the embedded server then.
	Hosting bool `json:"hosting"`
}

// heartbeat is the presence message: the sender's Peer, or its goodbye.
type heartbeat struct {
	Peer
	// Leaving is set by Close: drop the peer now instead of after its TTL.
	Leaving bool `json:"leaving,omitempty"`
}

// peerEntry is a heard peer and when it was heard.
type peerEntry struct {
	peer Peer
	seen time.Time
}

// heartbeatLoop announces this process every HeartbeatInterval, the first
// time at once; a host also makes sure nats.json still names it and
// nats-auth.json still holds its credentials, readable by the owner only.
func (b *Bus) heartbeatLoop() {
	t := time.NewTicker(b.opts.HeartbeatInterval)
	defer t.Stop()
	for {
		b.sendHeartbeat(false)
		b.keepRecord()
		b.keepCredentials()
		select {
		case <-b.ctx.Done():
			return
		case <-t.C:
		}
	}
}

// selfPeer describes this process now.
func (b *Bus) selfPeer() Peer {
	p := b.self
	p.LastSeen = time.Now().UTC()
	p.Position = b.opts.Position()
	b.mu.Lock()
	p.Hosting = b.srv != nil
	b.mu.Unlock()
	return p
}

// sendHeartbeat publishes this process's presence (or its goodbye). Errors
// are logged: presence is best effort.
func (b *Bus) sendHeartbeat(leaving bool) {
	body, err := json.Marshal(heartbeat{Peer: b.selfPeer(), Leaving: leaving})
	if err != nil {
		b.opts.Logger.Error("bus: encode heartbeat", "err", err)
		return
	}
	nc, err := b.conn()
	if err != nil {
		return
	}
	if err := nc.Publish(PresenceSubject(b.opts.Namespace), body); err != nil {
		b.opts.Logger.Debug("bus: heartbeat", "err", err)
	}
}

// receiveHeartbeat records a peer's heartbeat; it is the presence
// subscription's handler.
func (b *Bus) receiveHeartbeat(m *nats.Msg) {
	var hb heartbeat
	if err := json.Unmarshal(m.Data, &hb); err != nil || hb.ID == "" {
		b.opts.Logger.Debug("bus: skip presence message", "err", err)
		return
	}
	if hb.ID == b.self.ID {
		return
	}
	b.peersMu.Lock()
	defer b.peersMu.Unlock()
	if hb.Leaving {
		delete(b.peers, hb.ID)
		return
	}
	b.peers[hb.ID] = peerEntry{peer: hb.Peer, seen: time.Now()}
}

// Peers lists the live processes on this namespace: this process first,
// then every peer heard from within 3 heartbeat intervals, by PID then ID.
// LastSeen is by this process's clock. In "off" mode only this process is
// listed.
func (b *Bus) Peers() []Peer {
	ttl := peerTTLIntervals * b.opts.HeartbeatInterval
	now := time.Now()
	var others []Peer
	b.peersMu.Lock()
	for id, e := range b.peers {
		if now.Sub(e.seen) > ttl {
			delete(b.peers, id)
			continue
		}
		p := e.peer
		p.LastSeen = e.seen.UTC()
		others = append(others, p)
	}
	b.peersMu.Unlock()
	slices.SortFunc(others, func(x, y Peer) int {
		if x.PID != y.PID {
			return x.PID - y.PID
		}
		if x.ID < y.ID {
			return -1
		}
		if x.ID > y.ID {
			return 1
		}
		return 0
	})
	return append([]Peer{b.selfPeer()}, others...)
}
