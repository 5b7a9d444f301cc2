//go:build linux

package main

import (
	"os"
	"syscall"
)

// peakKiB is the peak resident set size of a finished child, in KiB: the
// ru_maxrss that wait4 reports for it (KiB on Linux). It is 0 when the
// state carries no usage.
func peakKiB(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss
	}
	return 0
}
