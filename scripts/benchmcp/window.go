package main

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"
)

// rowWindow and colWindow hold, in every table a command measured, when it
// ran and how loaded the machine was at its start and end; the tables
// print it under their title.
const (
	rowWindow = "\x00window"
	colWindow = "window"
)

// windowNow is the date, time and load average now: "2026-12-02 20:31 UTC
// (load 1.02 0.98 0.77)"; the load is "?" where /proc/loadavg is missing.
func windowNow() string {
	load := "?"
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(b)); len(f) >= 3 {
			load = strings.Join(f[:3], " ")
		}
	}
	return time.Now().UTC().Format("2006-01-02 15:04") + " UTC (load " + load + ")"
}

// MarkWindow records, in every table that has results, that they were
// measured from start to end (windowNow texts) on this machine's cores.
func (r *Recorder) MarkWindow(start, end string) {
	var tables []string
	for _, res := range r.results {
		if res.Row != rowWindow && !slices.Contains(tables, res.Table) {
			tables = append(tables, res.Table)
		}
	}
	if len(start) > 11 && strings.HasPrefix(end, start[:11]) { // the same day: "2026-12-02 "
		end = end[11:]
	}
	text := fmt.Sprintf("%d cores, %s to %s", runtime.NumCPU(), start, end)
	for _, t := range tables {
		r.SetText(t, rowWindow, colWindow, text)
	}
}
