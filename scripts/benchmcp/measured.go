package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// measured is what one finished child process cost: wall time, user +
// system CPU time, and its peak resident set size in bytes (the largest of
// the process and the children it waited for, as /usr/bin/time reports
// it).
type measured struct {
	Wall    time.Duration
	CPU     time.Duration
	PeakRSS int64
}

// runMeasured runs cmd to its end and measures it. Stdout is returned;
// stderr goes to ours unless cmd sets its own.
func runMeasured(cmd *exec.Cmd) ([]byte, measured, error) {
	var out bytes.Buffer
	cmd.Stdout = &out
	if cmd.Stderr == nil {
		cmd.Stderr = os.Stderr
	}
	t := time.Now()
	err := cmd.Run()
	m := measured{Wall: time.Since(t)}
	if ps := cmd.ProcessState; ps != nil {
		m.CPU = ps.UserTime() + ps.SystemTime()
		if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
			m.PeakRSS = int64(ru.Maxrss) * 1024 // KiB on Linux
		}
	}
	return out.Bytes(), m, err
}

// cosCommand is cosBin with args, under ctx.
func cosCommand(ctx context.Context, cosBin string, args ...string) *exec.Cmd {
	return exec.CommandContext(ctx, cosBin, args...)
}

// procStatusBytes reads one "Vm…: N kB" line of /proc/PID/status, in
// bytes (VmHWM: peak resident set, VmRSS: resident now); 0 when it cannot
// be read (not Linux, process gone).
func procStatusBytes(pid int, field string) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		rest, ok := strings.CutPrefix(line, field+":")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			return 0
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0
		}
		return kb * 1024
	}
	return 0
}

// addMeasured records a measured process in table at row: wall and CPU
// seconds, and peak RSS in MB when known.
func addMeasured(rec *Recorder, table, row string, m measured) {
	rec.Add(table, row, colWall, "s", m.Wall.Seconds())
	rec.Add(table, row, colCPU, "s", m.CPU.Seconds())
	if m.PeakRSS > 0 {
		rec.Add(table, row, colPeakRSS, "MB", float64(m.PeakRSS)/1e6)
	}
}

// Columns of the index and kernel tables.
const (
	colWall    = "wall"
	colCPU     = "cpu"
	colPeakRSS = "peak rss"
)

// clockTicks is the unit of the CPU times in /proc/PID/stat (USER_HZ,
// 100 on every Linux architecture Go supports).
const clockTicks = 100

// procCPU is the user + system CPU time a running process has used so far,
// from /proc/PID/stat; false when it cannot be read.
func procCPU(pid int) (time.Duration, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// The command name (field 2) is in brackets and may hold spaces: the
	// fields counted are after its closing bracket, state first (field 3).
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64) // field 14
	stime, err2 := strconv.ParseInt(f[12], 10, 64) // field 15
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(utime+stime) * time.Second / clockTicks, true
}
