package natslog_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cos-dev/cos/eventlog/natslog"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// startJetStream starts an in-process nats-server with JetStream, its
// file store in a temporary folder, on a random loopback port, and shuts
// it down at cleanup. It returns the server and its client URL.
func startJetStream(tb testing.TB) (*server.Server, string) {
	tb.Helper()
	srv, err := server.NewServer(&server.Options{
		ServerName: "natslog-test",
		Host:       "127.0.0.1",
		Port:       server.RANDOM_PORT,
		NoSigs:     true,
		NoLog:      true,
		JetStream:  true,
		StoreDir:   tb.TempDir(),
	})
	if err != nil {
		tb.Fatal(err)
	}
	srv.Start()
	if !srv.ReadyForConnections(10 * time.Second) {
		srv.Shutdown()
		tb.Fatal("nats-server did not start")
	}
	tb.Cleanup(func() {
		srv.Shutdown()
		srv.WaitForShutdown()
	})
	return srv, srv.ClientURL()
}

var streamCounter atomic.Int64

// newStreamName returns a stream name no other test of this process uses.
func newStreamName() string { return fmt.Sprintf("T%d", streamCounter.Add(1)) }

// openLog opens a handle on stream name at url with o, creating the
// stream when missing (unless o.ReadOnly), and closes it at cleanup.
func openLog(tb testing.TB, url, name string, o natslog.Options) *natslog.Log {
	tb.Helper()
	o.Stream = name
	o.Create = !o.ReadOnly
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	l, err := natslog.Open(ctx, url, o)
	if err != nil {
		tb.Fatalf("open %s/%s: %v", url, name, err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := l.Close(ctx); err != nil {
			tb.Errorf("close: %v", err)
		}
	})
	return l
}

// connect returns a raw client connection to url, closed at cleanup, and
// its JetStream context.
func connect(tb testing.TB, url string) (*nats.Conn, jetstream.JetStream) {
	tb.Helper()
	nc, err := nats.Connect(url)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		tb.Fatal(err)
	}
	return nc, js
}
