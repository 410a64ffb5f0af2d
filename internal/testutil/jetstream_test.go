package testutil

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// TestJetStreamCluster_LeaderKillAndRestart forms a three-node cluster,
// creates an R3 stream, stops its leader (another node takes over and
// accepts writes), and restarts the stopped node, whose replica catches up.
func TestJetStreamCluster_LeaderKillAndRestart(t *testing.T) {
	c := StartJetStream(t, JetStreamOptions{Nodes: 3})
	if got := len(c.ClientURLs()); got != 3 {
		t.Fatalf("ClientURLs: %d, want 3", got)
	}
	for i := range 3 {
		if got, want := c.Server(i).Name(), "n"+strconv.Itoa(i+1); got != want {
			t.Errorf("node %d name %q, want %q", i, got, want)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	js, err := jetstream.New(c.ConnectAll())
	if err != nil {
		t.Fatal(err)
	}
	const stream = "HARNESS"
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{
		Name: stream, Subjects: []string{"h.>"}, Replicas: 3, Storage: jetstream.FileStorage,
	}); err != nil {
		t.Fatalf("create R3 stream: %v", err)
	}
	publish := func(n int) {
		t.Helper()
		for range n {
			if _, err := js.Publish(ctx, "h.x", []byte("x")); err != nil {
				t.Fatalf("publish: %v", err)
			}
		}
	}
	publish(10)

	old := c.KillLeader(stream)
	if c.Server(old) != nil {
		t.Fatalf("node %d still running after KillLeader", old)
	}
	leader := c.StreamLeader(stream)
	if leader == old {
		t.Fatalf("stream leader still the stopped node %d", old)
	}
	publish(10) // the new leader (two of three replicas) takes writes

	c.RestartNode(old)
	c.WaitStreamLastSeq(old, stream, 20)
	if got, ok := c.StreamLastSeq(old, stream); !ok || got != 20 {
		t.Fatalf("restarted node's replica at %d (%v), want 20", got, ok)
	}

	// A client of the restarted node alone reads all twenty.
	js2, err := jetstream.New(c.Connect(old))
	if err != nil {
		t.Fatal(err)
	}
	s, err := js2.Stream(ctx, stream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Msgs != 20 {
		t.Fatalf("stream holds %d messages through the restarted node, want 20", info.State.Msgs)
	}
}

// TestJetStreamCluster_SingleNode runs JetStream on one node with no
// cluster: an R1 stream, its leader and its last seq.
func TestJetStreamCluster_SingleNode(t *testing.T) {
	c := StartJetStream(t, JetStreamOptions{SyncAlways: true})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	js, err := jetstream.New(c.Connect(0))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "ONE", Subjects: []string{"one"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := js.Publish(ctx, "one", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if got := c.StreamLeader("ONE"); got != 0 {
		t.Fatalf("leader %d, want 0", got)
	}
	if got, _ := c.StreamLastSeq(0, "ONE"); got != 1 {
		t.Fatalf("last seq %d, want 1", got)
	}
	c.StopNode(0)
	c.RestartNode(0)
	c.WaitStreamLastSeq(0, "ONE", 1)
}
