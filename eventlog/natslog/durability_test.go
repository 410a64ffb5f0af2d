package natslog_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/cos-dev/cos/eventlog/natslog"
	"github.com/cos-dev/cos/internal/testutil"
)

// TestLog_DurabilityWarnsOnUnintendedSingleReplica: a handle on a stream
// of one replica reports it (Durability) and warns at open, until the
// operator says one replica is intended — on the stream (IntendSingleReplica),
// which every later handle reads, or by creating it with SingleReplica; a
// stream of three replicas is reported without a warning.
func TestLog_DurabilityWarnsOnUnintendedSingleReplica(t *testing.T) {
	_, url := startJetStream(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	opened := func(name string, o natslog.Options) (*natslog.Log, string) {
		t.Helper()
		var logs testutil.SyncBuffer
		o.Logger = slog.New(slog.NewTextHandler(&logs, nil))
		return openLog(t, url, name, o), logs.String()
	}

	name := newStreamName()
	l, logs := opened(name, natslog.Options{})
	d := l.Durability()
	if d.Replicas != 1 || d.SingleReplicaIntended || !strings.Contains(d.Warning, "one replica") || !strings.Contains(d.Warning, "--single-replica") {
		t.Fatalf("Durability of an R1 stream nobody said was intended = %+v; want replicas 1 and a warning naming --single-replica", d)
	}
	if !strings.Contains(logs, "level=WARN") || !strings.Contains(logs, "one replica") {
		t.Fatalf("open logged %q; want the warning", logs)
	}
	if err := l.IntendSingleReplica(ctx); err != nil {
		t.Fatal(err)
	}
	if d := l.Durability(); d.Warning != "" || !d.SingleReplicaIntended {
		t.Fatalf("Durability after IntendSingleReplica = %+v; want no warning", d)
	}
	again, logs := opened(name, natslog.Options{})
	if d := again.Durability(); d.Warning != "" || !d.SingleReplicaIntended || d.Replicas != 1 || strings.Contains(logs, "one replica") {
		t.Fatalf("a later handle: Durability %+v, logs %q; want the intent read from the stream", d, logs)
	}

	created, logs := opened(newStreamName(), natslog.Options{SingleReplica: true})
	if d := created.Durability(); d.Warning != "" || !d.SingleReplicaIntended || strings.Contains(logs, "one replica") {
		t.Fatalf("a stream created with SingleReplica: Durability %+v, logs %q; want no warning", d, logs)
	}
	if _, err := natslog.Open(ctx, url, natslog.Options{Stream: newStreamName(), Create: true, SingleReplica: true, Replicas: 3}); err == nil {
		t.Fatal("SingleReplica with Replicas 3 was accepted")
	}
}

// TestCluster_DurabilityOfThreeReplicas: a stream of three replicas is
// reported as such, with no warning, and IntendSingleReplica refuses it.
func TestCluster_DurabilityOfThreeReplicas(t *testing.T) {
	c := testutil.StartJetStream(t, testutil.JetStreamOptions{Nodes: 3})
	l := openHandle(t, c.URL(), natslog.Options{Stream: newStreamName(), Replicas: 3})
	if d := l.Durability(); d.Replicas != 3 || d.Warning != "" {
		t.Fatalf("Durability of an R3 stream = %+v; want replicas 3, no warning", d)
	}
	if err := l.IntendSingleReplica(context.Background()); err == nil {
		t.Fatal("IntendSingleReplica on an R3 stream succeeded")
	}
}

// TestLog_CloseIsNotALostConnection: closing a handle logs nothing about
// a lost connection (every cos command on a NATS store warned so on exit).
func TestLog_CloseIsNotALostConnection(t *testing.T) {
	_, url := startJetStream(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var logs testutil.SyncBuffer
	l, err := natslog.Open(ctx, url, natslog.Options{Stream: newStreamName(), Create: true, SingleReplica: true, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Close(ctx); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // nats.go runs its callbacks on a goroutine of its own
	if s := logs.String(); strings.Contains(s, "lost the connection") {
		t.Errorf("Close logged %q", s)
	}
}
