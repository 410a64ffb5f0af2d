package natslog

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/cos-dev/cos/internal/testutil"
)

// TestFetch_StalledConsumerStartsAgain: a read of a range whose messages
// do not come (here: the range runs past the stream's end until a writer
// fills it, after more than consumeStall) starts again with a new consumer
// from the first message it has not seen, and delivers every message once,
// in order.
func TestFetch_StalledConsumerStartsAgain(t *testing.T) {
	l := openInternal(t)
	var logs testutil.SyncBuffer
	l.opts.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i := range 20 {
		if _, err := l.Append(ctx, req("s:a", i)); err != nil {
			t.Fatal(err)
		}
	}
	s, err := l.currentStream(ctx)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(consumeStall + 500*time.Millisecond)
		for i := range 5 {
			if _, err := l.Append(ctx, req("s:a", 100+i)); err != nil {
				t.Error(err)
			}
		}
	}()
	var seqs []uint64
	start := time.Now()
	if err := l.fetch(ctx, s, 1, 25, func(m rawMsg) error {
		seqs = append(seqs, m.seq)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(seqs) != 25 {
		t.Fatalf("read %d messages, want 25: %v", len(seqs), seqs)
	}
	for i, seq := range seqs {
		if seq != uint64(i+1) {
			t.Fatalf("message %d is seq %d: %v", i, seq, seqs)
		}
	}
	if d := time.Since(start); d < consumeStall {
		t.Fatalf("the read ended after %s, before the writer filled the range", d)
	}
	if !strings.Contains(logs.String(), "from_seq=21") {
		t.Fatalf("the read did not start again from seq 21; log: %s", logs.String())
	}
}
