package extract

import (
	"bytes"
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/cos-dev/cos/graph"
)

// minifiedJS is n bytes of one-line minified JavaScript: functions
// calling one another, as a bundler writes them.
func minifiedJS(n int) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < n; i++ {
		b.WriteString("function a")
		b.WriteString(itoa(i))
		b.WriteString("(t,e){var n=t.x(e);return b")
		b.WriteString(itoa(i))
		b.WriteString("(n,e)+t.y}")
	}
	return b.Bytes()
}

// oneLineC is n bytes of C on one line.
func oneLineC(n int) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < n; i++ {
		b.WriteString("int f")
		b.WriteString(itoa(i))
		b.WriteString("(int x){return g(x)+h(x,1);} ")
	}
	return b.Bytes()
}

// extractOne runs Run over a folder holding one file and returns the
// bytes allocated (runtime.MemStats.TotalAlloc) and the peak live heap
// above the start (HeapAlloc, sampled every 20 ms).
func extractOne(tb testing.TB, name string, data []byte) (total, peak uint64) {
	tb.Helper()
	root := tb.TempDir()
	writeFile(tb, root, name, data)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	done := make(chan struct{})
	sampled := make(chan uint64)
	go func() {
		var m runtime.MemStats
		var top uint64
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				sampled <- top
				return
			case <-t.C:
				runtime.ReadMemStats(&m)
				top = max(top, m.HeapAlloc)
			}
		}
	}()
	_, err := Run(context.Background(), root, Options{Workers: 1}, nil, func([]graph.FileExtracted, []string) error { return nil })
	close(done)
	top := <-sampled
	runtime.ReadMemStats(&after)
	if err != nil {
		tb.Fatal(err)
	}
	if top > before.HeapAlloc {
		peak = top - before.HeapAlloc
	}
	return after.TotalAlloc - before.TotalAlloc, peak
}

// reportLongLine runs extractOne b.N times and reports alloc_B/file,
// alloc_x (per input byte), peak_B and peak_x.
func reportLongLine(b *testing.B, name string, data []byte) {
	var total, peak uint64
	for range b.N {
		t, p := extractOne(b, name, data)
		total += t
		peak = max(peak, p)
	}
	b.ReportMetric(float64(total)/float64(b.N), "alloc_B/file")
	b.ReportMetric(float64(total)/float64(b.N)/float64(len(data)), "alloc_x")
	b.ReportMetric(float64(peak), "peak_B")
	b.ReportMetric(float64(peak)/float64(len(data)), "peak_x")
}

// BenchmarkRun_LongLine reports the bytes one extraction of a 2 MiB
// single-line file allocates (alloc_B/file), that per byte of input
// (alloc_x), and the peak live heap (peak_B, peak_x). Measured: the cost
// follows the number of declarations and calls, not the line's length
// (BenchmarkRun_LongLineSplit, the same code one declaration a line,
// allocates as much).
func BenchmarkRun_LongLine(b *testing.B) {
	for _, c := range []struct {
		name string
		data []byte
	}{
		{"app.min.js", minifiedJS(DefaultMaxFileSize - 64)},
		{"one.c", oneLineC(DefaultMaxFileSize - 64)},
	} {
		b.Run(c.name, func(b *testing.B) { reportLongLine(b, c.name, c.data) })
	}
}

// BenchmarkRun_LongLineSplit is BenchmarkRun_LongLine with the same code
// one declaration a line: what the length of the line itself costs.
func BenchmarkRun_LongLineSplit(b *testing.B) {
	for _, c := range []struct {
		name string
		data []byte
	}{
		{"app.min.js", bytes.ReplaceAll(minifiedJS(DefaultMaxFileSize-64-(DefaultMaxFileSize/32)), []byte("}function"), []byte("}\nfunction"))},
		{"one.c", bytes.ReplaceAll(oneLineC(DefaultMaxFileSize-64), []byte("} int"), []byte("}\nint"))},
	} {
		b.Run(c.name, func(b *testing.B) { reportLongLine(b, c.name, c.data) })
	}
}
