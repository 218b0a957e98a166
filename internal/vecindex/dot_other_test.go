//go:build !amd64 || purego

package vecindex

import "testing"

func withGeneric(t *testing.T, f func(t *testing.T)) { f(t) }
