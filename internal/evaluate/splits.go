package evaluate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Split is one training/test partition of the rows, as row indices.
type Split struct {
	Name        string
	Train, Test []int
}

// seedStream separates the splits' random stream from others seeded alike.
const seedStream = 0x5eed

// Holdout puts round(n·testFraction) rows, chosen at random with seed, in
// the test part (at least 1, at most n−1). The same seed gives the same
// split.
func Holdout(n int, testFraction float64, seed uint64) (Split, error) {
	if !(testFraction > 0 && testFraction < 1) {
		return Split{}, fmt.Errorf("the test fraction must be in (0, 1), not %v", testFraction)
	}
	if n < 2 {
		return Split{}, fmt.Errorf("a holdout split needs at least 2 rows, not %d", n)
	}
	nt := min(max(int(math.Round(float64(n)*testFraction)), 1), n-1)
	perm := rand.New(rand.NewPCG(seed, seedStream)).Perm(n)
	test, train := slices.Clone(perm[:nt]), slices.Clone(perm[nt:])
	slices.Sort(test)
	slices.Sort(train)
	return Split{Name: "holdout", Train: train, Test: test}, nil
}

// KFold deals the rows, in a random order from seed, into k folds of sizes
// differing by at most one; split f tests on fold f and trains on the rest.
func KFold(n, k int, seed uint64) ([]Split, error) {
	if k < 2 || k > n {
		return nil, fmt.Errorf("k-fold needs 2 ≤ k ≤ N (%d rows), not k = %d", n, k)
	}
	perm := rand.New(rand.NewPCG(seed, seedStream)).Perm(n)
	splits := make([]Split, k)
	for f := range k {
		lo, hi := f*n/k, (f+1)*n/k
		test := slices.Clone(perm[lo:hi])
		train := append(slices.Clone(perm[:lo]), perm[hi:]...)
		slices.Sort(test)
		slices.Sort(train)
		splits[f] = Split{Name: fmt.Sprintf("fold %d", f+1), Train: train, Test: test}
	}
	return splits, nil
}

// TrainTest is the split of data made of nTrain training rows followed by
// nTest test rows (a separate test data set appended to the training one).
func TrainTest(nTrain, nTest int) Split {
	s := Split{Name: "test set", Train: make([]int, nTrain), Test: make([]int, nTest)}
	for i := range s.Train {
		s.Train[i] = i
	}
	for i := range s.Test {
		s.Test[i] = nTrain + i
	}
	return s
}

// check verifies that a split's indices are in range, disjoint and
// non-empty.
func (s Split) check(n int) error {
	if len(s.Train) == 0 || len(s.Test) == 0 {
		return fmt.Errorf("split %q has an empty training or test part", s.Name)
	}
	seen := make([]bool, n)
	for _, part := range [][]int{s.Train, s.Test} {
		for _, i := range part {
			if i < 0 || i >= n {
				return fmt.Errorf("split %q names row %d of %d", s.Name, i+1, n)
			}
			if seen[i] {
				return fmt.Errorf("split %q puts row %d twice", s.Name, i+1)
			}
			seen[i] = true
		}
	}
	return nil
}
