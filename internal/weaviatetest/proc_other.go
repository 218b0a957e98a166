//go:build !unix

package weaviatetest

import (
	"os"
	"os/exec"
)

func setProcAttr(*exec.Cmd) {}

// terminate stops cmd; without Unix signals it is a kill.
func terminate(cmd *exec.Cmd) { cmd.Process.Signal(os.Kill) }

func kill(cmd *exec.Cmd) { cmd.Process.Kill() }
