//go:build !linux

package store

import "errors"

// mapFile does not map files outside Linux: data sets are read.
func mapFile(File, int64) ([]byte, error) {
	return nil, errors.New("files are not mapped on this system")
}

// unmapFile is never called outside Linux.
func unmapFile([]byte) error { return nil }

// canMap is whether mapFile can map files here.
const canMap = false
