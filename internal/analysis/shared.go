package analysis

import (
	"context"
	"sync"
)

// maxSharedBytes is the largest factorisation a Shared keeps: beyond it
// each fit makes its own, as without a Shared, so that what one fit leaves
// behind never holds more than this while the next fit runs.
const maxSharedBytes = 256 << 20

// Shared lets the fits of several methods on the same rows share work
// that does not depend on the method. Today that is the row space of the
// N×N path (rowspace.go): with fewer rows than features, pca, mddmf, cca,
// mvmd and the other feature-space methods each factorise the centred rows
// (Xcᵀ = QR, 2·D·N² flops), and cplst and the ridge hat the rows as given;
// with a Shared the first fit's factorisation serves the next ones. The
// numbers are the same to the bit: the same factorisation of the same
// rows, reused.
//
// A Shared belongs to one feature matrix: it keeps the matrix it was
// first used with and serves nothing for any other. It holds at most one
// factorisation of each kind (centred or as given) and none above
// maxSharedBytes. It is safe for concurrent use. The zero value is not
// ready; use NewShared.
type Shared struct {
	mu     sync.Mutex
	of     any                // in.X or in.Sparse of the first use
	spaces map[bool]sharedRow // keyed by centred
}

// sharedRow is a kept factorisation and the shift it was made with.
type sharedRow struct {
	rs    *rowSpace
	shift []float64
}

// NewShared returns an empty Shared.
func NewShared() *Shared { return &Shared{spaces: map[bool]sharedRow{}} }

// WithShared returns in with s attached, so that the fits on in share
// their factorisations through it (see Shared).
func (in Input) WithShared(s *Shared) Input {
	in.shared = s
	return in
}

// featureMatrix is the matrix behind in's features, for Shared's check.
func (in Input) featureMatrix() any {
	if in.Sparse != nil {
		return in.Sparse
	}
	return in.X
}

// rowSpace returns in's row space, centred by the column means (mean
// gives them, computing them on the first call) or as given, from in's
// Shared when it holds one and keeping a new one there when it fits;
// factor factorises. It returns the shift the factorisation was made with
// (nil when not centred).
func (in Input) rowSpace(ctx context.Context, centred bool, mean func() ([]float64, error), factor func(shift []float64) (*rowSpace, error)) (*rowSpace, []float64, error) {
	s := in.shared
	if s != nil {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.of == nil {
			s.of = in.featureMatrix()
		}
		if s.of != in.featureMatrix() {
			s = nil
		} else if e, ok := s.spaces[centred]; ok {
			return e.rs, e.shift, ctx.Err()
		}
	}
	var shift []float64
	if centred {
		var err error
		if shift, err = mean(); err != nil {
			return nil, nil, err
		}
	}
	rs, err := factor(shift)
	if err != nil {
		return nil, nil, err
	}
	if s != nil && 8*int64(rs.d)*int64(rs.n)+8*int64(rs.n)*int64(rs.k) <= maxSharedBytes {
		s.spaces[centred] = sharedRow{rs: rs, shift: shift}
	}
	return rs, shift, nil
}

// SharedBytes is the most a Shared holds after fits on rows of shape s
// (the training rows): with fewer rows than features, the factorisations
// of the rows, centred and as given (D·N reflectors and N×N coordinates
// each), those within maxSharedBytes; otherwise nothing.
func SharedBytes(s Shape) int64 {
	if s.N >= s.D {
		return 0
	}
	one := 8*int64(s.D)*int64(s.N) + 8*int64(s.N)*int64(s.N)
	if one > maxSharedBytes {
		return 0
	}
	return 2 * one
}
