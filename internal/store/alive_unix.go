//go:build unix

package store

import (
	"errors"
	"syscall"
)

// processAlive reports whether process pid exists on this machine.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
