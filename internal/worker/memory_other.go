//go:build !linux

package worker

// DefaultMemoryLimit is 0 (no limit) outside Linux, where the machine's
// memory is not read.
func DefaultMemoryLimit() int64 { return 0 }
