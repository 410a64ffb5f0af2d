package natslog_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/eventlog/eventlogtest"
	"github.com/cos-dev/cos/eventlog/natslog"
)

// TestLog_Contract runs the eventlog.Log contract suite against the JetStream
// log on one in-process server: each test's log "name" is a stream of its
// own, each open a new connection (as another process would have), and at
// cleanup a fresh read-only handle verifies the whole chain.
func TestLog_Contract(t *testing.T) {
	_, url := startJetStream(t)
	var (
		mu      sync.Mutex
		streams = map[*testing.T]map[string]string{}
	)
	eventlogtest.Run(t, func(t *testing.T, name string) eventlog.Log {
		mu.Lock()
		if streams[t] == nil {
			streams[t] = map[string]string{}
		}
		stream, ok := streams[t][name]
		if !ok {
			stream = newStreamName()
			streams[t][name] = stream
			t.Cleanup(func() { verifyStream(t, url, stream) })
		}
		mu.Unlock()
		return openLog(t, url, stream, natslog.Options{})
	})
}

// verifyStream verifies the chain of stream with a read-only handle.
func verifyStream(t *testing.T, url, stream string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	l, err := natslog.Open(ctx, url, natslog.Options{Stream: stream, ReadOnly: true})
	if err != nil {
		t.Errorf("open %s read-only to verify: %v", stream, err)
		return
	}
	defer l.Close(ctx)
	if _, err := l.Verify(ctx); err != nil {
		t.Errorf("verify %s: %v", stream, err)
	}
}
