//go:build unix

package weaviatetest

import (
	"os/exec"
	"syscall"
)

// setProcAttr puts the server in its own process group, so that signals
// reach anything it starts, and (on Linux) has it killed if the test
// process dies without cleaning up.
func setProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	setPdeathsig(cmd.SysProcAttr)
}

// terminate sends SIGTERM to the process group of a running cmd.
func terminate(cmd *exec.Cmd) { signalGroup(cmd, syscall.SIGTERM) }

// kill sends SIGKILL to the process group of a running cmd.
func kill(cmd *exec.Cmd) { signalGroup(cmd, syscall.SIGKILL) }

func signalGroup(cmd *exec.Cmd, sig syscall.Signal) {
	// The group id is the leader's pid; it is not reused while the leader
	// has not been waited for, which the callers guarantee.
	if err := syscall.Kill(-cmd.Process.Pid, sig); err != nil {
		cmd.Process.Signal(sig)
	}
}
