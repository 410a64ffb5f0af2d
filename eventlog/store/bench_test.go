package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/cos-dev/cos/eventlog"
	"github.com/cos-dev/cos/eventlog/store"
	"github.com/cos-dev/cos/internal/testutil"
)

// BenchmarkImport copies a bbolt log of 20,000 events into an empty
// stream (R1, one node) and back into a new file, as `cos migrate` does;
// reports events/s of each direction.
func BenchmarkImport(b *testing.B) {
	const n = 20_000
	ctx := context.Background()
	src, err := store.Open(ctx, store.Address{Path: filepath.Join(b.TempDir(), "events.db")}, store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	data := json.RawMessage(`{"title":"a task of the benchmark","n":1}`)
	for i := 0; i < n; i += 500 {
		reqs := make([]eventlog.AppendRequest, 500)
		for j := range reqs {
			reqs[j] = eventlog.AppendRequest{Stream: fmt.Sprintf("s%d", (i+j)%50), Events: []eventlog.Payload{{Type: "bench.tick", Data: data}}}
		}
		if _, err := src.Append(ctx, reqs...); err != nil {
			b.Fatal(err)
		}
	}
	defer src.Close(ctx)
	js := testutil.StartJetStream(b, testutil.JetStreamOptions{SyncAlways: true})
	var toNATS, toFile time.Duration
	b.ResetTimer()
	for i := range b.N {
		st, _ := store.Parse("", fmt.Sprintf("%s/B%d", js.URL(), i))
		t0 := time.Now()
		if _, err := store.Import(ctx, st, src.(store.ImportSource), nil); err != nil {
			b.Fatal(err)
		}
		toNATS += time.Since(t0)
		l, err := store.Open(ctx, st, store.Options{ReadOnly: true})
		if err != nil {
			b.Fatal(err)
		}
		file, _ := store.Parse("", filepath.Join(b.TempDir(), "back.db"))
		t0 = time.Now()
		if _, err := store.Import(ctx, file, l.(store.ImportSource), nil); err != nil {
			b.Fatal(err)
		}
		toFile += time.Since(t0)
		_ = l.Close(ctx)
	}
	b.ReportMetric(float64(n*b.N)/toNATS.Seconds(), "file→stream-events/s")
	b.ReportMetric(float64(n*b.N)/toFile.Seconds(), "stream→file-events/s")
}
