//go:build !linux

package worker

import (
	"errors"
	"runtime/debug"
	"syscall"
)

// limitMemory sets only the garbage collector's soft limit: the hard
// limits are Linux's.
func limitMemory(limit int64) error {
	if limit > 0 {
		debug.SetMemoryLimit(limit - limit/8)
	}
	return nil
}

// residentBytes is not known outside Linux.
func residentBytes(pid int) (int64, error) { return 0, errors.ErrUnsupported }

func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
