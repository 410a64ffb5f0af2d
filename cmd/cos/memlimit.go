package main

import (
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// liveHeapMetric is the runtime's count of heap bytes marked live by the
// last completed GC cycle.
const liveHeapMetric = "/gc/heap/live:bytes"

// memoryLimitCeiling (bytes) is the highest the soft limit follows the
// live heap: indexing the Linux kernel holds 3 to 5 GB live, and the limit
// plus what is not Go heap (parser memory, mapped log pages) must stay
// under 8 GB of resident memory.
const memoryLimitCeiling = 6 << 30

// limitFor is the soft memory limit (bytes) for a live heap of live bytes:
// half again the live heap, so that a GC cycle comes once the heap has
// grown by half of what is live, never under base (the limit for small
// heaps) nor over ceiling. Under a limit near or below the live heap the
// GC runs back to back, up to half of the CPU: a fixed 2.5 GiB limit did
// so for the whole extraction of the Linux kernel (3 to 4 GB resident).
func limitFor(live uint64, base, ceiling int64) int64 {
	want := int64(min(live+live/2, uint64(ceiling)))
	return max(base, want)
}

// followLiveHeap sets the soft memory limit from the live heap every
// period (limitFor) until stop is closed. It returns when stop is closed.
func followLiveHeap(base, ceiling int64, period time.Duration, stop <-chan struct{}) {
	sample := []metrics.Sample{{Name: liveHeapMetric}}
	t := time.NewTicker(period)
	defer t.Stop()
	last := int64(-1)
	for {
		metrics.Read(sample)
		if sample[0].Value.Kind() == metrics.KindUint64 {
			if l := limitFor(sample[0].Value.Uint64(), base, ceiling); l != last {
				debug.SetMemoryLimit(l)
				last = l
			}
		}
		select {
		case <-stop:
			return
		case <-t.C:
		}
	}
}
