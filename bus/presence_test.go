package bus

import (
	"os"
	"slices"
	"testing"
	"time"
)

// hasPID reports whether peers lists a process with pid.
func hasPID(peers []Peer, pid int) bool {
	return slices.ContainsFunc(peers, func(p Peer) bool { return p.PID == pid })
}

func TestBus_Presence_ListsPeersAndDropsTheDead(t *testing.T) {
	const hb = 100 * time.Millisecond
	dir := t.TempDir()
	var pos uint64 = 17
	b := openBus(t, Options{StateDir: dir, HeartbeatInterval: hb, Position: func() uint64 { return pos }})
	if !b.State().Hosting {
		t.Fatal("the first bus does not host")
	}
	kid := startChild(t, dir, hb, 42)

	waitFor(t, "child listed", func() bool { return hasPID(b.Peers(), kid.status.PID) })
	peers := b.Peers()
	if len(peers) != 2 {
		t.Fatalf("peers %+v, want self and the child", peers)
	}
	self, other := peers[0], peers[1]
	if self.PID != os.Getpid() || !self.Hosting || self.Position != 17 {
		t.Errorf("self %+v, want pid %d hosting at 17", self, os.Getpid())
	}
	host, _ := os.Hostname()
	if other.PID != kid.status.PID || other.Host != host || other.Hosting || other.Position != 42 {
		t.Errorf("child %+v, want pid %d on %s at 42, not hosting", other, kid.status.PID, host)
	}
	if other.Started.IsZero() || other.LastSeen.Before(other.Started) {
		t.Errorf("child times started=%v last_seen=%v", other.Started, other.LastSeen)
	}

	kid.kill9(t)
	waitFor(t, "dead child dropped", func() bool { return !hasPID(b.Peers(), kid.status.PID) })
	if peers := b.Peers(); len(peers) != 1 {
		t.Fatalf("peers %+v, want only self", peers)
	}
}

func TestBus_Presence_GoodbyeOnClose(t *testing.T) {
	// A heartbeat interval far longer than the test: the peer can only leave
	// the list through its goodbye.
	const hb = time.Hour
	dir := t.TempDir()
	a := openBus(t, Options{StateDir: dir, HeartbeatInterval: hb})
	b := openBus(t, Options{StateDir: dir, HeartbeatInterval: hb})
	bID := b.self.ID
	listed := func() bool {
		return slices.ContainsFunc(a.Peers(), func(p Peer) bool { return p.ID == bID })
	}
	waitFor(t, "b listed", listed)
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "b dropped after its goodbye", func() bool { return !listed() })
}
