package analysis

import (
	"context"
	"testing"
)

// BenchmarkSMACOF fits metric and nonmetric mds (one start, at most 100
// Guttman transforms) on 700 rows of 20 features into 6 coordinates,
// about song's training part under seed 003's protocol.
func BenchmarkSMACOF(b *testing.B) {
	in := tuMultiLabel(11, 700, 20, 4)
	for _, kind := range []string{MDSMetric, MDSNonmetric} {
		b.Run(kind, func(b *testing.B) {
			p := Params{MDSKind: kind, D: 6, Starts: 1, Iterations: 100}
			for b.Loop() {
				if _, err := Fit(context.Background(), "mds", in, p, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
