package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

// startProfiles starts the profiles the environment asks for and returns
// the function that writes them out at exit:
//
//   - COS_CPUPROFILE=FILE: a CPU profile of the whole run (go tool pprof FILE);
//   - COS_MEMPROFILE=FILE: a heap profile taken at exit, after a GC (live
//     objects as inuse_*, everything allocated as alloc_*).
//
// A file that cannot be created is reported on stderr and the run goes on
// unprofiled: profiling is a measuring aid, never a reason to fail a command.
func startProfiles() (stop func()) {
	var cpu *os.File
	if p := os.Getenv("COS_CPUPROFILE"); p != "" {
		f, err := os.Create(p)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "cos: CPU profile not taken: %v\n", err)
		} else {
			cpu = f
		}
	}
	return func() {
		if cpu != nil {
			pprof.StopCPUProfile()
			_ = cpu.Close()
		}
		if p := os.Getenv("COS_MEMPROFILE"); p != "" {
			f, err := os.Create(p)
			if err == nil {
				runtime.GC()
				err = pprof.Lookup("heap").WriteTo(f, 0)
				_ = f.Close()
			}
			if err != nil {
				fmt.Fprintf(os.Stderr, "cos: heap profile not taken: %v\n", err)
			}
		}
	}
}
