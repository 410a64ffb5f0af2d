package testutil

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// jsReadyTimeout bounds every wait of the JetStream harness: a node that
// does not start, a meta leader or stream leader that is not elected, a
// replica that does not catch up. Past it the test fails instead of hanging.
const jsReadyTimeout = 30 * time.Second

// jsAccount is the account every client of the harness lands in: the
// servers configure no accounts, so it is the global one.
const jsAccount = server.DEFAULT_GLOBAL_ACCOUNT

// JetStreamOptions configure StartJetStream.
type JetStreamOptions struct {
	// Nodes is the number of servers; zero means 1. One node runs
	// JetStream alone (no cluster, R1 only); two or more form a cluster
	// "cos-test" whose every node routes to every other.
	Nodes int
	// SyncAlways makes every node fsync each write before acknowledging it
	// (sync_interval: always), as the servers cos embeds do. The default
	// leaves nats-server's own interval (2 minutes): faster, and enough for
	// tests whose nodes stop in-process, which flushes.
	SyncAlways bool
	// MaxPayload is the largest message a client may publish, in bytes;
	// zero means nats-server's default (1 MiB).
	MaxPayload int32
	// NoAdvertise keeps the nodes from telling clients the other nodes'
	// addresses, so a client knows only the URLs it was given (a test
	// that puts proxies in front of the nodes needs that).
	NoAdvertise bool
}

// JetStreamCluster is a set of in-process nats-server nodes with JetStream,
// each on 127.0.0.1 with its own file store in a temporary folder of the
// test. Nodes are numbered from 0 (named n1, n2, …); a stopped node keeps
// its store folder and ports, and RestartNode brings it back on them. Every
// node is shut down at cleanup. Its methods are safe for concurrent use.
type JetStreamCluster struct {
	tb   testing.TB
	opts JetStreamOptions

	// mu guards nodes[i].srv (a running server, nil while stopped).
	mu    sync.Mutex
	nodes []*jsNode
}

// jsNode is one node: what survives a stop and a restart.
type jsNode struct {
	name        string
	storeDir    string
	clientPort  int // fixed after the first start
	clusterPort int // fixed before the first start (every route names it)
	srv         *server.Server
}

// StartJetStream starts o.Nodes nats-server nodes with JetStream and
// returns once every node accepts clients and, for a cluster, a JetStream
// meta leader is elected and knows every node. It fails tb when a node
// does not start or the cluster does not form within 30 s.
func StartJetStream(tb testing.TB, o JetStreamOptions) *JetStreamCluster {
	tb.Helper()
	if o.Nodes == 0 {
		o.Nodes = 1
	}
	if o.Nodes < 0 {
		tb.Fatalf("start JetStream: %d nodes", o.Nodes)
	}
	c := &JetStreamCluster{tb: tb, opts: o}
	tb.Cleanup(c.shutdown)
	// A port chosen free can be taken by another process before its node
	// listens on it (test packages run in parallel, each starting
	// servers): the node then never becomes ready. Start again on other
	// ports, a few times, before failing.
	var err error
	for attempt := range jsStartAttempts {
		if attempt > 0 {
			tb.Logf("start JetStream: %v; starting again on other ports", err)
			c.shutdown()
		}
		if err = c.startAll(); err == nil {
			break
		}
	}
	if err != nil {
		tb.Fatalf("start JetStream: %v", err)
	}
	c.waitMetaLeader()
	return c
}

// jsStartAttempts is how many times StartJetStream starts the nodes on
// fresh ports before it fails.
const jsStartAttempts = 3

// startAll makes c.opts.Nodes fresh nodes — new store folders; for a
// cluster, client and cluster ports chosen together so no node takes
// another's — and starts them, stopping at the first that does not become
// ready.
func (c *JetStreamCluster) startAll() error {
	c.tb.Helper()
	var ports []int
	if c.opts.Nodes > 1 {
		ports = freePorts(c.tb, 2*c.opts.Nodes)
	}
	c.mu.Lock()
	c.nodes = nil
	for i := range c.opts.Nodes {
		n := &jsNode{name: "n" + strconv.Itoa(i+1), storeDir: c.tb.TempDir(), clientPort: server.RANDOM_PORT}
		if ports != nil {
			n.clientPort, n.clusterPort = ports[2*i], ports[2*i+1]
		}
		c.nodes = append(c.nodes, n)
	}
	c.mu.Unlock()
	for i := range c.nodes {
		if err := c.tryStart(i); err != nil {
			return err
		}
	}
	return nil
}

// freePorts returns n distinct free TCP ports on 127.0.0.1, holding them all
// until every one is chosen so none is handed out twice. nats-server's
// random port cannot serve for routes: every node must know every other's
// cluster port before it starts, because JetStream's clustering requires
// configured routes.
func freePorts(tb testing.TB, n int) []int {
	tb.Helper()
	ls := make([]net.Listener, 0, n)
	defer func() {
		for _, l := range ls {
			_ = l.Close()
		}
	}()
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			tb.Fatalf("free port: %v", err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports
}

// serverOptions returns node i's options: the same on every start.
func (c *JetStreamCluster) serverOptions(i int) *server.Options {
	n := c.nodes[i]
	o := &server.Options{
		ServerName: n.name,
		Host:       "127.0.0.1",
		Port:       n.clientPort,
		NoSigs:     true,
		NoLog:      true,
		JetStream:  true,
		StoreDir:   n.storeDir,
		SyncAlways: c.opts.SyncAlways,
		MaxPayload: c.opts.MaxPayload,
		// JetStream's own limits default to a share of the machine's
		// memory and disk; fixed ones keep runs alike.
		JetStreamMaxMemory: 256 << 20,
		JetStreamMaxStore:  4 << 30,
	}
	if len(c.nodes) > 1 {
		o.Cluster = server.ClusterOpts{Name: "cos-test", Host: "127.0.0.1", Port: n.clusterPort, NoAdvertise: c.opts.NoAdvertise}
		for j, m := range c.nodes {
			if j == i {
				continue
			}
			o.Routes = append(o.Routes, &url.URL{Scheme: "nats", Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(m.clusterPort))})
		}
	}
	return o
}

// start starts node i and waits until it accepts clients; it fails c.tb
// otherwise.
func (c *JetStreamCluster) start(i int) {
	c.tb.Helper()
	if err := c.tryStart(i); err != nil {
		c.tb.Fatal(err)
	}
}

// tryStart starts node i and waits until it accepts clients.
func (c *JetStreamCluster) tryStart(i int) error {
	n := c.nodes[i]
	// A port another process took since it was chosen would only show as
	// a node that never becomes ready: see it now.
	for _, port := range []int{n.clientPort, n.clusterPort} {
		if port <= 0 {
			continue
		}
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err != nil {
			return fmt.Errorf("start JetStream node %s: port %d is taken: %w", n.name, port, err)
		}
		_ = l.Close()
	}
	srv, err := server.NewServer(c.serverOptions(i))
	if err != nil {
		return fmt.Errorf("start JetStream node %s: %w", n.name, err)
	}
	srv.Start()
	if !srv.ReadyForConnections(jsReadyTimeout) {
		srv.Shutdown()
		srv.WaitForShutdown()
		return fmt.Errorf("start JetStream node %s (client port %d, cluster port %d): not accepting clients after %s", n.name, n.clientPort, n.clusterPort, jsReadyTimeout)
	}
	n.clientPort = srv.Addr().(*net.TCPAddr).Port
	c.mu.Lock()
	n.srv = srv
	c.mu.Unlock()
	return nil
}

// shutdown stops every running node; it runs at cleanup.
func (c *JetStreamCluster) shutdown() {
	c.mu.Lock()
	var srvs []*server.Server
	for _, n := range c.nodes {
		if n.srv != nil {
			srvs = append(srvs, n.srv)
			n.srv = nil
		}
	}
	c.mu.Unlock()
	for _, s := range srvs {
		s.Shutdown()
	}
	for _, s := range srvs {
		s.WaitForShutdown()
	}
}

// Len returns the number of nodes, running or stopped.
func (c *JetStreamCluster) Len() int { return len(c.nodes) }

// Name returns node i's server name: "n1" for node 0.
func (c *JetStreamCluster) Name(i int) string { return c.nodes[i].name }

// ClientURL returns node i's client URL, nats://127.0.0.1:PORT. It stays
// the same across a stop and a restart.
func (c *JetStreamCluster) ClientURL(i int) string {
	return "nats://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(c.nodes[i].clientPort))
}

// ClientURLs returns every node's client URL, node 0 first.
func (c *JetStreamCluster) ClientURLs() []string {
	urls := make([]string, len(c.nodes))
	for i := range c.nodes {
		urls[i] = c.ClientURL(i)
	}
	return urls
}

// URL returns every node's client URL in one comma-separated list, as
// nats.Connect and a --store address take them.
func (c *JetStreamCluster) URL() string { return strings.Join(c.ClientURLs(), ",") }

// Server returns node i's running server, or nil while it is stopped.
func (c *JetStreamCluster) Server(i int) *server.Server {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.nodes[i].srv
}

// Connect dials node i alone (no other server to fail over to) and closes
// the connection at cleanup. Reconnects to the same node are retried
// forever, so a connection outlives the node's restart.
func (c *JetStreamCluster) Connect(i int, opts ...nats.Option) *nats.Conn {
	c.tb.Helper()
	return c.connect(c.ClientURL(i), opts...)
}

// ConnectAll dials the cluster with every node's URL, so the connection
// fails over when its node stops, and closes it at cleanup.
func (c *JetStreamCluster) ConnectAll(opts ...nats.Option) *nats.Conn {
	c.tb.Helper()
	return c.connect(c.URL(), opts...)
}

func (c *JetStreamCluster) connect(url string, opts ...nats.Option) *nats.Conn {
	c.tb.Helper()
	opts = append([]nats.Option{
		nats.MaxReconnects(-1),
		nats.ReconnectWait(50 * time.Millisecond),
		nats.Name(c.tb.Name()),
	}, opts...)
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		c.tb.Fatalf("connect %s: %v", url, err)
	}
	c.tb.Cleanup(nc.Close)
	return nc
}

// StopNode shuts node i down and waits until it has stopped and, while
// the running nodes are a majority, until one of them leads the JetStream
// meta group (stopping the meta leader starts an election, during which
// stream and account requests go unanswered). Its store folder and ports
// are kept for RestartNode. Stopping a stopped node does nothing.
func (c *JetStreamCluster) StopNode(i int) {
	c.tb.Helper()
	c.mu.Lock()
	srv := c.nodes[i].srv
	c.nodes[i].srv = nil
	c.mu.Unlock()
	if srv == nil {
		return
	}
	srv.Shutdown()
	srv.WaitForShutdown()
	if len(c.nodes) > 1 && 2*len(c.running()) > len(c.nodes) {
		c.waitMetaLeader()
	}
}

// RestartNode starts the stopped node i again on its store folder and
// ports, and waits until it accepts clients and, in a cluster, is current
// with the JetStream meta group. Restarting a running node does nothing.
func (c *JetStreamCluster) RestartNode(i int) {
	c.tb.Helper()
	if c.Server(i) != nil {
		return
	}
	c.start(i)
	if len(c.nodes) > 1 {
		c.waitFor(fmt.Sprintf("node %s current with the JetStream meta group", c.nodes[i].name), func() bool {
			s := c.Server(i)
			return s != nil && s.JetStreamIsCurrent()
		})
	}
	c.waitMetaLeader()
}

// waitMetaLeader waits until a running node leads the JetStream meta group
// and counts every running node as an online peer, and every running node
// is current with it.
func (c *JetStreamCluster) waitMetaLeader() {
	c.tb.Helper()
	if len(c.nodes) == 1 {
		c.waitFor("JetStream enabled", func() bool {
			s := c.Server(0)
			return s != nil && s.JetStreamEnabled()
		})
		return
	}
	c.waitFor("a JetStream meta leader knowing every node", func() bool {
		var leader *server.Server
		running := c.running()
		for _, s := range running {
			if s.JetStreamIsLeader() {
				leader = s
			}
		}
		if leader == nil || len(leader.JetStreamClusterPeers()) < len(running) {
			return false
		}
		for _, s := range running {
			if !s.JetStreamIsCurrent() {
				return false
			}
		}
		return true
	})
}

// running returns the running servers, by node.
func (c *JetStreamCluster) running() []*server.Server {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []*server.Server
	for _, n := range c.nodes {
		if n.srv != nil {
			out = append(out, n.srv)
		}
	}
	return out
}

// waitFor polls cond until it holds, failing tb with what after
// jsReadyTimeout.
func (c *JetStreamCluster) waitFor(what string, cond func() bool) {
	c.tb.Helper()
	deadline := time.Now().Add(jsReadyTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			c.tb.Fatalf("JetStream cluster: no %s after %s", what, jsReadyTimeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// StreamLeader waits until a running node leads JetStream stream stream
// (of the global account) and returns that node's index. It fails tb after
// 30 s without a leader.
func (c *JetStreamCluster) StreamLeader(stream string) int {
	c.tb.Helper()
	leader := -1
	c.waitFor("leader of stream "+stream, func() bool {
		leader = c.streamLeader(stream)
		return leader >= 0
	})
	return leader
}

// streamLeader returns the index of the running node that leads stream, or
// -1. A single node leads every stream it has.
func (c *JetStreamCluster) streamLeader(stream string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, n := range c.nodes {
		if n.srv == nil {
			continue
		}
		if len(c.nodes) == 1 {
			if _, ok := streamLastSeq(n.srv, stream); ok {
				return i
			}
			continue
		}
		if n.srv.JetStreamIsStreamLeader(jsAccount, stream) {
			return i
		}
	}
	return -1
}

// KillLeader stops the node that leads stream, waits until another running
// node leads it, and returns the stopped node's index (for RestartNode).
// It needs a stream with replicas on at least two other running nodes.
func (c *JetStreamCluster) KillLeader(stream string) int {
	c.tb.Helper()
	old := c.StreamLeader(stream)
	c.StopNode(old)
	c.StreamLeader(stream)
	return old
}

// StreamLastSeq returns the last sequence of stream as node i stores it
// (its replica's state, which may lag the leader's), and false when node i
// is stopped or holds no such stream.
func (c *JetStreamCluster) StreamLastSeq(i int, stream string) (uint64, bool) {
	s := c.Server(i)
	if s == nil {
		return 0, false
	}
	return streamLastSeq(s, stream)
}

// WaitStreamLastSeq waits until node i's replica of stream holds every
// message up to seq and is current with its leader, failing tb after 30 s.
func (c *JetStreamCluster) WaitStreamLastSeq(i int, stream string, seq uint64) {
	c.tb.Helper()
	c.waitFor(fmt.Sprintf("replica of stream %s on %s at seq %d", stream, c.nodes[i].name, seq), func() bool {
		s := c.Server(i)
		if s == nil {
			return false
		}
		got, ok := streamLastSeq(s, stream)
		if !ok || got < seq {
			return false
		}
		return len(c.nodes) == 1 || s.JetStreamIsStreamCurrent(jsAccount, stream)
	})
}

// streamLastSeq reads stream's last sequence from s's own store through
// its monitoring (JSZ) report.
func streamLastSeq(s *server.Server, stream string) (uint64, bool) {
	info, err := s.Jsz(&server.JSzOptions{Account: jsAccount, Streams: true})
	if err != nil {
		return 0, false
	}
	for _, a := range info.AccountDetails {
		for _, st := range a.Streams {
			if st.Name == stream {
				return st.State.LastSeq, true
			}
		}
	}
	return 0, false
}
