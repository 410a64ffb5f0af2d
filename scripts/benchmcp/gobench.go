package main

import (
	"bufio"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// benchLine is one result line of `go test -bench`:
// "BenchmarkX/sub-2   	 100	  12345 ns/op	  810.0 events/s".
var benchLine = regexp.MustCompile(`^Benchmark(\S+?)(?:-\d+)?\s+(\d+)\s+(.+)$`)

// parseGoBench reads `go test -bench` output (any -count) and records every
// metric of every benchmark line into table: row is the benchmark name
// without "Benchmark" and the GOMAXPROCS suffix, col the unit ("ns/op",
// "events/s", "p50-µs"; the unit shown drops the "p50-" part). Each line adds one sample. Lines that are not
// benchmark results (headers, PASS, FAIL, logs) are skipped; it returns the
// names of benchmarks that printed "--- FAIL".
func parseGoBench(r io.Reader, table string, rec *Recorder) ([]string, error) {
	var failed []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<22)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if rest, ok := strings.CutPrefix(line, "--- FAIL: Benchmark"); ok {
			failed = append(failed, strings.Fields(rest)[0])
			continue
		}
		m := benchLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		fields := strings.Fields(m[3])
		for i := 0; i+1 < len(fields); i += 2 {
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				break
			}
			rec.Add(table, m[1], fields[i+1], unitOf(fields[i+1]), v)
		}
	}
	return failed, sc.Err()
}

// unitOf is the unit shown for a benchmark metric: "p50-µs" is in µs,
// "events/s" in events/s.
func unitOf(metric string) string {
	if i := strings.LastIndexByte(metric, '-'); i >= 0 {
		return metric[i+1:]
	}
	return metric
}
