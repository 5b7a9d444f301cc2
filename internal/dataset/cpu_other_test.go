//go:build !unix

package dataset_test

import "time"

// processCPU is 0 where getrusage is not there: the benchmarks then report
// no CPU time.
func processCPU() time.Duration { return 0 }
