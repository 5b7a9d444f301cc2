package analysis

import (
	"context"
	"math"

	"gonum.org/v1/gonum/mat"
)

// EstimateShardMemory returns, for method id with p on a shard of shape s
// (s.N the shard's rows), the peak bytes ShardStats allocates, not
// counting the shard's X and Y (the caller owns them) but counting the
// Partial it returns, and size, the bytes of that Partial (exactly
// Partial.Size):
// merging two partials holds about 2·size, and FitFromPartial holds size
// and the method's solve in D dimensions. It follows ShardStats on the
// D×D path with the ledger of EstimateMemory (memory.go): the label
// matrix the fit forms, then the statistics (computeStats, or
// computeStatsSparse when s.NNZ > 0). Refusals are those of ShardStats
// that need no data (*Error).
func EstimateShardMemory(id string, p Params, s Shape) (peak, size int64, err error) {
	m, err := shardMethod(id, p)
	if err != nil {
		return 0, 0, err
	}
	if s.N < 1 || s.D < 1 || s.Q < 1 {
		return 0, 0, invalid("", "a shard needs at least one row, feature and label, not N = %d, D = %d, q = %d", s.N, s.D, s.Q)
	}
	if err := m.checkKind(s.Classes != nil); err != nil {
		return 0, 0, err
	}
	// The spec the fit asks for, from a one-row placeholder of the shape.
	probe := Input{X: mat.NewDense(1, 1, nil), Y: mat.NewDense(1, s.Q, nil), Classes: s.Classes}
	h, err := runHook(context.Background(), m, p, probe, true, stage{})
	if err != nil {
		return 0, 0, err
	}
	spec := memSpec{gram: h.spec.gram, labelGram: h.spec.labelGram}
	n := float64(s.N)
	l := newLedger()
	l.sparseFor(s, false)
	if h.spec.labels != nil {
		spec.c = float64(h.spec.labels.cols)
		_, nnz := labelColumns(s)
		if h.kind == "quadratic" {
			ones := labelOnes(s)
			l.labelRows(n, ones) // Y's ones, then their feature map
			nnz = min(n*spec.c, ones*(float64(s.Q)+1)/2)
		}
		l.labelRows(n, nnz)
	}
	l.stats(n, float64(s.D), spec)
	part := partialSpec{Features: s.D, Gram: spec.gram, Cross: spec.c > 0, LabelCols: int(spec.c), LabelGram: spec.labelGram}
	return estimateBytes(l.peak), 8 * int64(partialFloats(part)), nil
}

// estimateBytes is the bytes of a ledger's float64s with EstimateMemory's
// margin and overhead, saturating.
func estimateBytes(units float64) int64 {
	bytes := 8*units*memoryMargin + memoryOverhead
	if bytes > math.MaxInt64/2 {
		return math.MaxInt64 / 2
	}
	return int64(bytes)
}
