package boltlog

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/cos-dev/cos/eventlog"
	bolt "go.etcd.io/bbolt"
)

// reportLatency adds p50 and p99 of the recorded durations, in µs.
func reportLatency(b *testing.B, d []time.Duration) {
	if len(d) == 0 {
		return
	}
	slices.Sort(d)
	b.ReportMetric(float64(d[len(d)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(d[len(d)*99/100].Microseconds()), "p99-µs")
}

func BenchmarkFloor_Fdatasync(b *testing.B) {
	f, err := os.Create(filepath.Join(b.TempDir(), "sync"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 4096)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := f.WriteAt(buf, 0); err != nil {
			b.Fatal(err)
		}
		if err := f.Sync(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "syncs/s")
}

// BenchmarkFloor_BoltUpdate is one bare bbolt Update per event on a file kept
// open: the floor a single durable append is compared with.
func BenchmarkFloor_BoltUpdate(b *testing.B) {
	db, err := bolt.Open(filepath.Join(b.TempDir(), "raw.db"), 0o644, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	val := []byte(`{"n":1,"pad":"0123456789012345678901234567890123456789"}`)
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		err := db.Update(func(tx *bolt.Tx) error {
			bk, err := tx.CreateBucketIfNotExists([]byte("e"))
			if err != nil {
				return err
			}
			return bk.Put(seqKey(uint64(i+1)), val)
		})
		if err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
	reportLatency(b, lat)
}

func BenchmarkAppend_Single(b *testing.B) {
	l, _ := openTestLog(b, Options{})
	data := json.RawMessage(`{"n":1,"pad":"0123456789012345678901234567890123456789"}`)
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if _, err := l.AppendOne(context.Background(), eventlog.AppendRequest{Stream: "s", Events: []eventlog.Payload{{Type: "bench.appended", Data: data}}}); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
	reportLatency(b, lat)
}

func BenchmarkAppend_Concurrent(b *testing.B) {
	for _, n := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("appenders=%d", n), func(b *testing.B) {
			l, _ := openTestLog(b, Options{})
			data := json.RawMessage(`{"n":1,"pad":"0123456789012345678901234567890123456789"}`)
			var wg sync.WaitGroup
			per := (b.N + n - 1) / n
			b.ResetTimer()
			for g := 0; g < n; g++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := 0; i < per; i++ {
						if _, err := l.AppendOne(context.Background(), eventlog.AppendRequest{Stream: "s" + strconv.Itoa(g), Events: []eventlog.Payload{{Type: "bench.appended", Data: data}}}); err != nil {
							b.Error(err)
							return
						}
					}
				}()
			}
			wg.Wait()
			b.StopTimer()
			b.ReportMetric(float64(per*n)/b.Elapsed().Seconds(), "events/s")
			st := l.Stats()
			b.ReportMetric(float64(st.Requests)/float64(st.Transactions), "req/tx")
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(st.Transactions), "µs/tx")
		})
	}
}

// BenchmarkAppend_Processes runs 4 OS processes × 16 goroutines appending to
// their own streams of one log.
func BenchmarkAppend_Processes(b *testing.B) {
	const procs, goroutines = 4, 16
	path := filepath.Join(b.TempDir(), "events.db")
	createLog(b, path)
	per := (b.N + procs*goroutines - 1) / (procs * goroutines)
	if per < 50 {
		per = 50
	}
	t := &testing.T{}
	b.ResetTimer()
	var wg sync.WaitGroup
	for p := 0; p < procs; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := childCmd(t, "bench", path, strconv.Itoa(p), strconv.Itoa(goroutines), strconv.Itoa(per))
			cmd.Stderr = nil // childCmd forwards stderr; CombinedOutput wants to own it
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Errorf("child: %v %s", err, out)
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(per*procs*goroutines)/b.Elapsed().Seconds(), "events/s")
}
