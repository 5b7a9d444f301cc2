package jobs

import (
	"math"

	"mldr/internal/analysis"
	"mldr/internal/dataset"
	"mldr/internal/evaluate"
	"mldr/internal/sparse"
	"mldr/internal/store"
)

// The shape of a job, what its memory depends on: the rows of its data sets,
// splits and fit rows, features, labels, label sets and ones, sparse cells
// (jobShape, from the data sets' records by shapeOfJob), and the same job
// with fewer rows, features, labels or test rows, for what would fit.

// jobShape is what a job's memory depends on.
type jobShape struct {
	train, test int // rows of the training set and of the test set (0: none)
	fit         int // rows the result models are fitted on
	testPart    int // rows of the largest test part of a split; 0 without an evaluation
	splits      int // splits whose row lists are held
	d, q        int
	classes     []int
	sets        int // distinct label sets of the training set and of the test set, together
	fitSets     int // distinct label sets of the fit rows, at most
	// ones and fitOnes bound the ones of the label matrix (multi-label
	// data) of every row and of the fit rows; 0: unknown.
	ones, fitOnes int
	// With sparse features (the training set, or the test set, stored
	// sparse: the job then holds every row sparse, see stackInputs),
	// trainNNZ and testNNZ are the non-zero cells of each set and fitNNZ
	// bounds those of the fit rows; trainSparse and testSparse say how
	// each set is loaded. All are zero for dense data.
	sparse                    bool
	trainSparse, testSparse   bool
	trainNNZ, testNNZ, fitNNZ int64
	// trainLabelsSparse and testLabelsSparse say that each set holds its
	// labels sparse (Summary.LabelStorage) and how many ones they have is
	// known; the job then holds them sparse (a stack of both only when
	// both are), and the evaluation makes a dense copy of every row's.
	trainLabelsSparse, testLabelsSparse bool
	trainOnes, testOnes                 int
}

// labelsSparse reports whether the job holds the labels of every row
// sparse (stackInputs).
func (s jobShape) labelsSparse() bool {
	return s.trainLabelsSparse && (s.test == 0 || s.testLabelsSparse)
}

// labelBytes is what the labels of r rows with ones ones hold: CSR when
// held sparse, else r × q float64s.
func (s jobShape) labelBytes(sparseRows bool, r, ones int) int64 {
	if sparseRows {
		return sparse.SparseBytes(r, int64(ones))
	}
	return 8 * int64(r) * int64(s.q)
}

// nnz is the non-zero cells of every row, with sparse features.
func (s jobShape) nnz() int64 { return s.trainNNZ + s.testNNZ }

// nonZeros is what a record says of its non-zero feature cells; rows ×
// features in a record made before it counted them.
func nonZeros(rec store.DatasetRecord) int64 {
	if rec.Summary.Storage == "" {
		return int64(rec.Summary.Rows) * int64(rec.Summary.Features)
	}
	return rec.Summary.NonZeros
}

// featureBytes is what the features of r rows with nnz non-zero cells
// hold: CSR with sparse features, else r × d float64s.
func (s jobShape) featureBytes(sparseRows bool, r int, nnz int64) int64 {
	if sparseRows {
		return sparse.SparseBytes(r, nnz)
	}
	return 8 * int64(r) * int64(s.d)
}

func (s jobShape) all() int { return s.train + s.test }

// fitShape is the shape the result models are fitted on.
func (s jobShape) fitShape() analysis.Shape {
	sh := analysis.Shape{N: s.fit, D: s.d, Q: s.q, Classes: s.classes, LabelSets: s.fitSets, LabelOnes: min(s.fitOnes, s.fit*s.q)}
	if s.sparse {
		sh.NNZ = max(1, min(s.fitNNZ, int64(s.fit)*int64(s.d)))
	}
	return sh
}

// allShape is the shape of every row, as the evaluation sees it.
func (s jobShape) allShape() analysis.Shape {
	sh := analysis.Shape{N: s.all(), D: s.d, Q: s.q, Classes: s.classes, LabelSets: s.sets, LabelOnes: min(s.ones, s.all()*s.q), LabelsSparse: s.labelsSparse()}
	if s.sparse {
		sh.NNZ = max(1, min(s.nnz(), int64(s.all())*int64(s.d)))
	}
	return sh
}

// labelSets is a record's count of distinct label sets, or when the record
// does not know it (0), the worst case: one per row.
func labelSets(rec store.DatasetRecord) int {
	if g := rec.Summary.DistinctLabelsets; g > 0 {
		return min(g, rec.Summary.Rows)
	}
	return rec.Summary.Rows
}

// labelOnes is the number of ones of a multi-label record's label matrix
// (its cardinality times its rows, rounded up), 0 when not known.
func labelOnes(rec store.DatasetRecord) int {
	c := rec.Summary.LabelCardinality
	if c == nil || rec.Summary.Kind == dataset.MultiDim {
		return 0
	}
	return int(math.Ceil(*c*float64(rec.Summary.Rows))) + 1
}

// shapeOfJob is the shape of a normalized request's job on its records
// (test is ignored without a TestDataset).
func shapeOfJob(req Request, train, test store.DatasetRecord) jobShape {
	n := train.Summary.Rows
	sh := jobShape{train: n, fit: n, d: train.Summary.Features, q: train.Summary.LabelCount, sets: labelSets(train), ones: labelOnes(train)}
	sh.fitOnes = sh.ones // a subset of the rows holds at most the set's ones
	sh.classes = shapeOf(train, n).Classes
	evaluated := req.Evaluate != nil && req.Evaluate.Classifier != evaluate.ClassifierNone
	switch s := req.Split; {
	case req.TestDataset != "":
		sh.test = test.Summary.Rows
		sh.sets = min(sh.sets+labelSets(test), sh.all())
		if sh.ones > 0 && labelOnes(test) > 0 {
			sh.ones += labelOnes(test)
		} else {
			sh.ones = 0
		}
		sh.testPart, sh.splits = sh.test, 1
	case s != nil && s.Kind == SplitHoldout:
		sh.testPart = int(float64(n)*s.TestFraction + 0.5)
		sh.fit = n - sh.testPart
		sh.splits = 1
	case s != nil && s.Kind == SplitKFold && s.Folds > 0:
		sh.testPart = (n + s.Folds - 1) / s.Folds
		sh.splits = s.Folds
	case s != nil && s.Kind == SplitPredefined:
		// The folds' sizes are not in the record: the worst a fold can
		// be, all rows but the one it must train on.
		sh.testPart = max(n-1, 1)
		sh.splits = max(train.Folds, 1)
	}
	if !evaluated {
		sh.testPart = 0
	}
	sh.fitSets = min(labelSets(train), sh.fit) // the fit rows are the training set's
	sh.trainOnes, sh.trainLabelsSparse = labelOnes(train), train.Summary.LabelStorage == dataset.StorageSparse
	sh.trainLabelsSparse = sh.trainLabelsSparse && sh.trainOnes > 0
	if sh.test > 0 {
		sh.testOnes, sh.testLabelsSparse = labelOnes(test), test.Summary.LabelStorage == dataset.StorageSparse
		sh.testLabelsSparse = sh.testLabelsSparse && sh.testOnes > 0
	}
	sh.trainSparse = train.Summary.Storage == dataset.StorageSparse
	sh.testSparse = sh.test > 0 && test.Summary.Storage == dataset.StorageSparse
	if sh.sparse = sh.trainSparse || sh.testSparse; sh.sparse {
		sh.trainNNZ = nonZeros(train)
		if sh.test > 0 {
			sh.testNNZ = nonZeros(test)
		}
		// The fit rows hold at most the training set's non-zero cells:
		// a holdout's may hold more than their share.
		sh.fitNNZ = sh.trainNNZ
	}
	return sh
}

// withFeatures is s with d features.
func (s jobShape) withFeatures(d int) jobShape {
	scale := func(v int64) int64 { return v * int64(d) / int64(max(s.d, 1)) }
	s.trainNNZ, s.testNNZ, s.fitNNZ = scale(s.trainNNZ), scale(s.testNNZ), scale(s.fitNNZ)
	s.d = d
	return s
}

// withRows is s with a sample of n training rows, the other counts scaled
// alike.
func (s jobShape) withRows(n int) jobShape {
	scale := func(v int) int { return int(int64(v) * int64(n) / int64(max(s.train, 1))) }
	s.test, s.fit, s.testPart = scale(s.test), scale(s.fit), scale(s.testPart)
	scale64 := func(v int64) int64 { return v * int64(n) / int64(max(s.train, 1)) }
	s.trainNNZ, s.testNNZ, s.fitNNZ = scale64(s.trainNNZ), scale64(s.testNNZ), scale64(s.fitNNZ)
	s.trainOnes, s.testOnes = scale(s.trainOnes), scale(s.testOnes)
	s.train = n
	s.sets, s.fitSets = min(s.sets, s.all()), min(s.fitSets, s.fit)
	return s
}

// withLabels is s with q of its labels (multi-label data), the ones of
// the label matrix scaled alike.
func (s jobShape) withLabels(q int) jobShape {
	s.ones = int(int64(s.ones) * int64(q) / int64(max(s.q, 1)))
	s.fitOnes = int(int64(s.fitOnes) * int64(q) / int64(max(s.q, 1)))
	s.trainOnes = int(int64(s.trainOnes) * int64(q) / int64(max(s.q, 1)))
	s.testOnes = int(int64(s.testOnes) * int64(q) / int64(max(s.q, 1)))
	s.q = q
	return s
}

// withTestPart is s with test parts of n rows.
func (s jobShape) withTestPart(n int) jobShape {
	s.testPart = n
	return s
}
