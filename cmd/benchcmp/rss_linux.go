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

// selfPeakKiB is this process's own peak resident set size, in KiB, 0 if
// unknown. A child started with os/exec reports at least this much in its
// ru_maxrss (see provideData), so it is the floor of every peak measured.
func selfPeakKiB() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Maxrss
}
