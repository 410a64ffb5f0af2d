package natslog_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/eventlog/natslog"
)

// TestParseStore_PortOutOfRange: a port outside 1–65535 is refused by
// ParseStore, naming it, instead of failing at the dial.
func TestParseStore_PortOutOfRange(t *testing.T) {
	for _, s := range []string{"nats://127.0.0.1:99999", "nats://127.0.0.1:0/COS", "nats://h:4222,nats://h:65536/COS"} {
		if _, _, err := natslog.ParseStore(s); err == nil || !strings.Contains(err.Error(), "port") {
			t.Errorf("ParseStore(%q) = %v; want an error naming the port", s, err)
		}
	}
	if _, _, err := natslog.ParseStore("nats://127.0.0.1:65535/COS"); err != nil {
		t.Errorf("port 65535: %v", err)
	}
}

// TestOpen_NoServerIsUnavailable: Open with no server listening fails
// with an *eventlog.StorageError that wraps ErrUnavailable (the servers
// did not answer: retry), promptly.
func TestOpen_NoServerIsUnavailable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := fmt.Sprintf("nats://%s", l.Addr())
	_ = l.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err = natslog.Open(ctx, url, natslog.Options{Stream: newStreamName()})
	var stor *eventlog.StorageError
	if !errors.Is(err, natslog.ErrUnavailable) || !errors.As(err, &stor) {
		t.Fatalf("Open with no server: %v; want a StorageError wrapping ErrUnavailable", err)
	}
}

// TestHead_StoppedServerIsUnavailable: once the server stops, Head fails
// within JetStream's request timeout with ErrUnavailable rather than a
// bare StorageError.
func TestHead_StoppedServerIsUnavailable(t *testing.T) {
	srv, url := startJetStream(t)
	l := openLog(t, url, newStreamName(), natslog.Options{})
	srv.Shutdown()
	srv.WaitForShutdown()
	// No deadline of the caller's: JetStream's own request timeout ends it.
	start := time.Now()
	if _, err := l.Head(context.Background()); !errors.Is(err, natslog.ErrUnavailable) {
		t.Fatalf("Head with the server stopped: %v; want ErrUnavailable", err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("Head with the server stopped took %s", d)
	}
}
