//go:build !linux

package main

import "os"

// peakKiB is 0 (unknown) off Linux: ru_maxrss is in KiB only there (macOS
// reports bytes), so the command does not guess.
func peakKiB(*os.ProcessState) int64 { return 0 }

// selfPeakKiB is 0 (unknown) off Linux.
func selfPeakKiB() int64 { return 0 }
