// Package deploy_test checks the configuration files under deploy/: they
// parse with nats-server's own parser, say what the README says, and a
// cluster started from them takes cos's appends.
package deploy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/state"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

var configs = []string{"nats/n1.conf", "nats/n2.conf", "nats/n3.conf"}

// TestDeploy_ConfigsParse: each node's file parses with
// server.ProcessConfigFile and holds a three-node JetStream cluster on
// loopback: client ports 4222–4224, fsync on every write, a store folder
// of its own, routes to all three cluster ports.
func TestDeploy_ConfigsParse(t *testing.T) {
	stores := map[string]bool{}
	for i, c := range configs {
		o, err := server.ProcessConfigFile(c)
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		if want := fmt.Sprintf("n%d", i+1); o.ServerName != want {
			t.Errorf("%s: server_name %q, want %q", c, o.ServerName, want)
		}
		if o.Host != "127.0.0.1" || o.Port != 4222+i {
			t.Errorf("%s: listen %s:%d, want 127.0.0.1:%d", c, o.Host, o.Port, 4222+i)
		}
		if !o.JetStream || !o.SyncAlways {
			t.Errorf("%s: jetstream %v, sync_interval always %v; want both", c, o.JetStream, o.SyncAlways)
		}
		// The largest event cos accepts (1 MiB of data) plus its envelope
		// and headers must fit one message.
		if o.MaxPayload < eventlog.DefaultMaxEventBytes+64<<10 {
			t.Errorf("%s: max_payload %d bytes; a cos event of %d bytes of data does not fit", c, o.MaxPayload, eventlog.DefaultMaxEventBytes)
		}
		if o.StoreDir == "" || stores[o.StoreDir] {
			t.Errorf("%s: store_dir %q is empty or another node's", c, o.StoreDir)
		}
		stores[o.StoreDir] = true
		if o.Cluster.Name != "cos" || o.Cluster.Port != 6222+i {
			t.Errorf("%s: cluster %q port %d, want cos port %d", c, o.Cluster.Name, o.Cluster.Port, 6222+i)
		}
		var routes []string
		for _, r := range o.Routes {
			routes = append(routes, r.Host)
		}
		if got := strings.Join(routes, ","); got != "127.0.0.1:6222,127.0.0.1:6223,127.0.0.1:6224" {
			t.Errorf("%s: routes %s", c, got)
		}
	}
}

// freePorts returns n ports free on loopback right now.
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	var ls []net.Listener
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		_ = l.Close()
	}
	return ports
}

// startFromConfigs starts the three nodes from the files under deploy/,
// with the ports moved to free ones and the store folders in t.TempDir(),
// and returns the --store address of the cluster.
func startFromConfigs(t *testing.T) string {
	t.Helper()
	client, cluster := freePorts(t, 3), freePorts(t, 3)
	var routes []*url.URL
	for _, p := range cluster {
		routes = append(routes, &url.URL{Scheme: "nats-route", Host: fmt.Sprintf("127.0.0.1:%d", p)})
	}
	var servers []*server.Server
	var urls []string
	for i, c := range configs {
		o, err := server.ProcessConfigFile(c)
		if err != nil {
			t.Fatal(err)
		}
		o.Port, o.HTTPPort, o.Cluster.Port, o.Routes = client[i], 0, cluster[i], routes
		o.StoreDir = filepath.Join(t.TempDir(), filepath.Base(o.StoreDir))
		o.NoLog, o.NoSigs = true, true
		s, err := server.NewServer(o)
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		go s.Start()
		t.Cleanup(func() { s.Shutdown(); s.WaitForShutdown() })
		servers = append(servers, s)
		urls = append(urls, fmt.Sprintf("nats://127.0.0.1:%d", client[i]))
	}
	for _, s := range servers {
		if !s.ReadyForConnections(30 * time.Second) {
			t.Fatalf("%s did not start", s.Name())
		}
	}
	// The JetStream meta group needs a leader before a stream can be made.
	deadline := time.Now().Add(30 * time.Second)
	for {
		ready := false
		for _, s := range servers {
			if s.JetStreamIsLeader() {
				ready = true
			}
		}
		if ready {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no JetStream meta leader within 30 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	return strings.Join(urls, ",") + "/COS"
}

// TestDeploy_ClusterFromConfigs starts the three nodes from the files and
// appends through cos: `cos log init` (LogOptions.CreateStream) with a
// store address listing the three servers creates the stream with three
// replicas, an event appended through one machine's
// log is read through another's, and the chain verifies.
func TestDeploy_ClusterFromConfigs(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a three-node cluster")
	}
	store := startFromConfigs(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	a, err := state.OpenLog(ctx, t.TempDir(), state.LogOptions{Store: store, CreateStream: true})
	if err != nil {
		t.Fatalf("open the log in %s: %v", store, err)
	}
	defer a.Close(context.Background())
	rec, err := state.AppendOne(ctx, a, eventlog.AppendRequest{StreamPrefix: "task:TASK-",
		Events: []eventlog.Payload{{Type: "task.created", Data: json.RawMessage(`{"title":"from n1"}`)}}})
	if err != nil {
		t.Fatalf("append: %v", err)
	}
	// Another machine lists the servers the other way round.
	parts := strings.Split(strings.TrimSuffix(store, "/COS"), ",")
	other := parts[2] + "," + parts[1] + "," + parts[0] + "/COS"
	b, err := state.OpenLog(ctx, t.TempDir(), state.LogOptions{Store: other, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close(context.Background())
	h, err := b.Head(ctx)
	if err != nil || h.Seq != rec.LastSeq || h.Hash != rec.Hashes[0] {
		t.Fatalf("head through the other machine = %+v, %v; want seq %d hash %s", h, err, rec.LastSeq, rec.Hashes[0])
	}
	if n, err := b.Verify(ctx); err != nil || n != 1 {
		t.Fatalf("Verify = %d, %v; want 1", n, err)
	}
	replicas := streamReplicas(t, parts[0])
	if replicas != 3 {
		t.Fatalf("the stream cos created has %d replicas, want 3", replicas)
	}
}

// streamReplicas returns the replica count of the COS stream.
func streamReplicas(t *testing.T, addr string) int {
	t.Helper()
	nc, err := nats.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := js.Stream(ctx, "COS")
	if err != nil {
		t.Fatal(err)
	}
	return s.CachedInfo().Config.Replicas
}
