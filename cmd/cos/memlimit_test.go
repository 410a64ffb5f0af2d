package main

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestLimitFor(t *testing.T) {
	const base, ceiling = 100, 1000
	for _, c := range []struct {
		live uint64
		want int64
	}{
		{0, base},
		{60, base},     // 90 < base
		{100, 150},     // half again the live heap
		{600, 900},     //
		{700, ceiling}, // 1050 capped
		{1 << 62, ceiling},
	} {
		if got := limitFor(c.live, base, ceiling); got != c.want {
			t.Errorf("limitFor(%d) = %d, want %d", c.live, got, c.want)
		}
	}
}

// TestFollowLiveHeap holds 64 MiB live under a 16 MiB base: the limit the
// follower sets is half again the live heap, not the base.
func TestFollowLiveHeap(t *testing.T) {
	const base = 16 << 20
	old := debug.SetMemoryLimit(base)
	defer debug.SetMemoryLimit(old)
	live := make([][]byte, 64)
	for i := range live {
		live[i] = make([]byte, 1<<20)
	}
	runtime.GC()
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { followLiveHeap(base, 1<<30, time.Millisecond, stop); close(done) }()
	deadline := time.Now().Add(5 * time.Second)
	var got int64
	for time.Now().Before(deadline) {
		if got = debug.SetMemoryLimit(-1); got >= 64<<20*3/2 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	close(stop)
	<-done
	runtime.KeepAlive(live)
	if got < 64<<20*3/2 || got >= 1<<30 {
		t.Fatalf("limit %d with 64 MiB live and base %d, want at least %d", got, base, 64<<20*3/2)
	}
}
