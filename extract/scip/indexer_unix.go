//go:build unix

package scip

import (
	"os/exec"
	"syscall"
)

// killGroup makes cmd the leader of a process group and its cancellation
// kill the whole group: the indexers are Node.js scripts that may start
// children of their own.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
