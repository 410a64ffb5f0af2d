package natslog_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/eventlog/boltlog"
	"github.com/cos-dev/cos/eventlog/natslog"
)

// What the log refuses, and how: a URL with a bad port, a server that is
// absent, stopped or silent (ErrUnavailable, never a bare StorageError), an
// import whose event the server's max_payload cannot carry, a stream name
// that differs from another only in case.

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
// once its retries give up (a stream leader election takes less) with
// ErrUnavailable rather than a bare StorageError.
func TestHead_StoppedServerIsUnavailable(t *testing.T) {
	srv, url := startJetStream(t)
	l := openLog(t, url, newStreamName(), natslog.Options{})
	srv.Shutdown()
	srv.WaitForShutdown()
	// No deadline of the caller's: the log's own retry bound ends it.
	start := time.Now()
	if _, err := l.Head(context.Background()); !errors.Is(err, natslog.ErrUnavailable) {
		t.Fatalf("Head with the server stopped: %v; want ErrUnavailable", err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("Head with the server stopped took %s", d)
	}
}

// TestImport_EventAboveMaxPayloadCopiesNothing: a source event the log
// file accepted (data just under 1 MiB) but larger, as a message, than the
// server's max_payload (1 MiB by default) fails the import before anything
// is sent — the stream stays empty, so the import can run again once
// max_payload is raised — with an error naming the seq and max_payload.
// Before, the batches ahead of it were stored and the import stopped at
// "nats: maximum payload exceeded", leaving a stream that refuses purges
// and a second import ("not empty").
func TestImport_EventAboveMaxPayloadCopiesNothing(t *testing.T) {
	_, url := startJetStream(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	src, err := boltlog.Open(ctx, filepath.Join(t.TempDir(), "events.db"), boltlog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = src.Close(context.Background()) }()
	const small = 2500
	reqs := make([]eventlog.AppendRequest, 0, small)
	for i := range small {
		reqs = append(reqs, one(fmt.Sprintf("s:%d", i%7), `{"n":1}`))
	}
	if _, err := src.Append(ctx, reqs...); err != nil {
		t.Fatal(err)
	}
	big, _ := json.Marshal(map[string]string{"x": strings.Repeat("a", eventlog.DefaultMaxEventBytes-16)})
	if _, err := src.AppendOne(ctx, eventlog.AppendRequest{Stream: "big", Events: []eventlog.Payload{{Type: "note.added", Data: big}}}); err != nil {
		t.Fatalf("the file refused the big event: %v", err)
	}
	name := newStreamName()
	_, err = natslog.Import(ctx, url, natslog.Options{Stream: name}, src, nil)
	if err == nil || !strings.Contains(err.Error(), "max_payload") || !strings.Contains(err.Error(), fmt.Sprint(small+1)) {
		t.Fatalf("Import: %v; want an error naming seq %d and max_payload", err, small+1)
	}
	l := openLog(t, url, name, natslog.Options{ReadOnly: true})
	if h, err := l.Head(ctx); err != nil || h.Seq != 0 {
		t.Fatalf("after the failed import the stream holds %d events (%v); want none", h.Seq, err)
	}
}

// TestOpen_SilentServerIsUnavailable: an address that accepts the
// connection but never speaks NATS (a wrong port: another service, a
// monitoring endpoint) fails Open with ErrUnavailable once the connect
// times out, like an address nobody listens on — not a bare StorageError.
func TestOpen_SilentServerIsUnavailable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close() // held open, silent, until the test ends
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err = natslog.Open(ctx, "nats://"+ln.Addr().String(), natslog.Options{Stream: newStreamName()})
	var stor *eventlog.StorageError
	if !errors.Is(err, natslog.ErrUnavailable) || !errors.As(err, &stor) {
		t.Fatalf("Open on a silent server: %v; want a StorageError wrapping ErrUnavailable", err)
	}
}

// TestOpen_StreamNamesDifferingInCaseCollide: a stream whose name differs
// from an existing one only in case would take the same subjects; Open
// refuses it saying so, not with JetStream's bare "subjects overlap".
func TestOpen_StreamNamesDifferingInCaseCollide(t *testing.T) {
	_, url := startJetStream(t)
	name := newStreamName()
	openLog(t, url, name, natslog.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := natslog.Open(ctx, url, natslog.Options{Stream: strings.ToLower(name), Create: true})
	if err == nil || !strings.Contains(err.Error(), "differ only in case") {
		t.Fatalf("Open of %q beside %q: %v; want an error saying names differing in case collide", strings.ToLower(name), name, err)
	}
}
