package server_test

import (
	"os"
	"strconv"
)

func mkdtemp() (string, error) { return os.MkdirTemp("", "foley-server-test-") }
func rmrf(dir string)          { os.RemoveAll(dir) }
func exit(code int)            { os.Exit(code) }
func itoa(n int) string        { return strconv.Itoa(n) }
