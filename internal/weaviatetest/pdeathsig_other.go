//go:build unix && !linux

package weaviatetest

import "syscall"

func setPdeathsig(*syscall.SysProcAttr) {}
