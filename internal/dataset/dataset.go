// Package dataset reads multi-label and multi-dimensional data sets from CSV
// and ARFF into a typed Dataset, checks them, summarises them, and writes them
// back out (CSV for people, a checksummed binary form for storage).
//
// The loader streams: it reads its io.Reader once, a line or (CSV data
// rows, parsed on every core) a chunk of lines at a time, and never holds
// the text and the matrix at the same time. Every refusal is an
// *InputError naming the line and column of the problem.
package dataset

import (
	"fmt"
	"sync"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/sparse"
)

// Kind says what the label columns of a data set hold.
type Kind string

const (
	// MultiLabel data have q binary labels: Y holds 0 or 1.
	MultiLabel Kind = "multilabel"
	// MultiDim data (multi-dimensional classification) have q categorical
	// class variables: Y holds each variable's category index 0…K_j−1, and
	// Categories names the categories.
	MultiDim Kind = "multidim"
)

// Words is the kind in words: "multi-label" or "multi-dimensional".
func (k Kind) Words() string {
	switch k {
	case MultiLabel:
		return "multi-label"
	case MultiDim:
		return "multi-dimensional"
	}
	return string(k)
}

// Dataset is a loaded data set: N rows of D numeric features and q labels.
type Dataset struct {
	// Name is a display name; the loader leaves it empty.
	Name string
	// Features holds the D feature names, in column order.
	Features Names
	// Labels holds the q label (or class variable) names.
	Labels Names
	// Kind tells how to read Y.
	Kind Kind
	// X is the N×D feature matrix of a dense data set; it is nil when
	// Sparse is set.
	X *mat.Dense
	// Sparse is the N×D feature matrix of a sparse data set (mostly zeros:
	// text and bag-of-words data), in CSR form; it is nil when X is set.
	// Exactly one of X and Sparse is set. The loader chooses the form (see
	// Load); Dense gives a dense copy to code that needs one.
	Sparse *sparse.CSR
	// Y is the N×q label matrix: 0/1 for MultiLabel, a category index for
	// MultiDim. It is nil when YSparse is set.
	Y *mat.Dense
	// YSparse is the N×q label matrix of a multi-label data set held
	// sparse: row i's entries are its labels, each of value 1. Exactly
	// one of Y and YSparse is set; YSparse only for MultiLabel data. The
	// loader holds labels sparse when that is smaller (chooseSparseLabels);
	// DenseY gives a dense copy to code that needs one.
	YSparse *sparse.CSR
	// Categories, for MultiDim data, lists variable j's categories as they
	// were written in the file: Y[i][j] = c means Categories[j][c]. It is nil
	// for MultiLabel data.
	Categories [][]string
	// Columns names every column of the input file in order, labels and
	// dropped columns included, as written in the file; LabelColumns names
	// the label columns among them (Labels may have a prefix stripped).
	Columns      []string
	LabelColumns []string
	// Warnings lists what the loader noticed but accepted (constant labels,
	// zero-variance features, dropped rows, …), as sentences.
	Warnings []string
}

// Rows returns N, the number of rows.
func (d *Dataset) Rows() int {
	switch {
	case d.X != nil:
		r, _ := d.X.Dims()
		return r
	case d.Sparse != nil:
		return d.Sparse.R
	}
	return 0
}

// IsSparse reports whether the features are held in Sparse.
func (d *Dataset) IsSparse() bool { return d.Sparse != nil }

// Dense returns the N×D feature matrix as a dense matrix: X itself for a
// dense data set (not a copy), a new dense copy of Sparse for a sparse one
// (N·D·8 bytes: check the size before asking for it). It returns nil when
// neither is set.
func (d *Dataset) Dense() *mat.Dense {
	switch {
	case d.X != nil:
		return d.X
	case d.Sparse != nil:
		return d.Sparse.Dense()
	}
	return nil
}

// WithDense returns d itself when its features are dense, else a shallow
// copy of d whose X is Dense() and Sparse nil, for code that reads X and
// not yet Sparse (it costs N·D·8 bytes).
func (d *Dataset) WithDense() *Dataset {
	if d.Sparse == nil {
		return d
	}
	c := *d
	c.X, c.Sparse = d.Sparse.Dense(), nil
	return &c
}

// featureDims returns the shape of the feature matrix, whichever form
// holds it.
func (d *Dataset) featureDims() (r, c int) {
	if d.Sparse != nil {
		return d.Sparse.Dims()
	}
	return d.X.Dims()
}

// LabelDims returns the shape of the label matrix, whichever form holds
// it (0, 0 when neither is set).
func (d *Dataset) LabelDims() (r, c int) {
	switch {
	case d.YSparse != nil:
		return d.YSparse.Dims()
	case d.Y != nil:
		return d.Y.Dims()
	}
	return 0, 0
}

// DenseY returns the N×q label matrix as a dense matrix: Y itself (not a
// copy), or a new dense copy of YSparse (N·q·8 bytes: check the size
// before asking for it).
func (d *Dataset) DenseY() *mat.Dense {
	if d.YSparse != nil {
		if d.YSparse.R == 0 || d.YSparse.C == 0 {
			return &mat.Dense{}
		}
		return d.YSparse.Dense()
	}
	return d.Y
}

// WithDenseY returns d itself when its labels are dense, else a shallow
// copy of d whose Y is DenseY() and YSparse nil, for code that reads Y
// (it costs N·q·8 bytes).
func (d *Dataset) WithDenseY() *Dataset {
	if d.YSparse == nil {
		return d
	}
	c := *d
	c.Y, c.YSparse = d.DenseY(), nil
	return &c
}

// LabelsOf appends to buf the indices of row i's labels (MultiLabel
// data: the columns where Y is 1, in ascending order) and returns it.
func (d *Dataset) LabelsOf(i int, buf []int32) []int32 {
	if d.YSparse != nil {
		ind, _ := d.YSparse.Row(i)
		return append(buf, ind...)
	}
	for j, v := range d.Y.RawRowView(i) {
		if v != 0 {
			buf = append(buf, int32(j))
		}
	}
	return buf
}

// LabelOnes counts the ones of a multi-label Y (Σ_i |y_i|).
func (d *Dataset) LabelOnes() int64 {
	if d.YSparse != nil {
		return int64(d.YSparse.NNZ())
	}
	var n int64
	if d.Y == nil {
		return 0
	}
	raw := d.Y.RawMatrix()
	for i := range raw.Rows {
		for _, v := range raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols] {
			if v != 0 {
				n++
			}
		}
	}
	return n
}

// Validate checks the shapes and values of d: exactly one of X and Sparse
// is set, the features are N×len(Features) (a sparse matrix passes
// sparse.CSR.Check), exactly one of Y and YSparse is set and the labels
// are N×len(Labels), Y holds 0/1 (MultiLabel) or valid category indices
// (MultiDim), YSparse holds ones (MultiLabel only), and the features hold
// no NaN or Inf. The loader's output always passes; Validate guards data
// built by other code.
func (d *Dataset) Validate() error {
	return d.validate(true)
}

// validate is Validate, leaving out the pass over X's values unless
// xValues is set (for a caller that makes it itself).
func (d *Dataset) validate(xValues bool) error {
	if (d.X == nil) == (d.Sparse == nil) || (d.Y == nil) == (d.YSparse == nil) {
		return fmt.Errorf("dataset: want exactly one of X and Sparse, and of Y and YSparse; got X %v, Sparse %v, Y %v, YSparse %v",
			d.X != nil, d.Sparse != nil, d.Y != nil, d.YSparse != nil)
	}
	if d.Sparse != nil {
		if err := d.Sparse.Check(); err != nil {
			return fmt.Errorf("dataset: the sparse features: %w", err)
		}
	}
	n, nf := d.featureDims()
	ny, nl := d.LabelDims()
	if n != ny {
		return fmt.Errorf("dataset: X has %d rows but Y has %d", n, ny)
	}
	if nf != d.Features.Len() || nl != d.Labels.Len() {
		return fmt.Errorf("dataset: X is %d×%d with %d feature names, Y is %d×%d with %d label names",
			n, nf, d.Features.Len(), ny, nl, d.Labels.Len())
	}
	if d.YSparse != nil {
		if d.Kind != MultiLabel {
			return fmt.Errorf("dataset: sparse labels of a %s data set; only multi-label labels are held sparse", d.Kind)
		}
		if err := d.YSparse.Check(); err != nil {
			return fmt.Errorf("dataset: the sparse labels: %w", err)
		}
		for k, v := range d.YSparse.Val {
			if v != 1 {
				return fmt.Errorf("dataset: sparse label entry %d is %v, not 1", k, v)
			}
		}
		return d.validateX(xValues)
	}
	switch d.Kind {
	case MultiLabel:
		for i := range n {
			for j := range nl {
				if v := d.Y.At(i, j); v != 0 && v != 1 {
					return fmt.Errorf("dataset: Y[%d][%d] = %v is not 0 or 1", i, j, v)
				}
			}
		}
	case MultiDim:
		if len(d.Categories) != nl {
			return fmt.Errorf("dataset: %d class variables but %d category lists", nl, len(d.Categories))
		}
		for i := range n {
			for j := range nl {
				v := d.Y.At(i, j)
				if v != float64(int(v)) || v < 0 || int(v) >= len(d.Categories[j]) {
					return fmt.Errorf("dataset: Y[%d][%d] = %v is not a category of %q", i, j, v, d.Labels.At(j))
				}
			}
		}
	default:
		return fmt.Errorf("dataset: unknown kind %q", d.Kind)
	}
	return d.validateX(xValues)
}

// validateX checks X's values (a sparse X's were checked by Check) when
// xValues is set.
func (d *Dataset) validateX(xValues bool) error {
	if d.X == nil || !xValues {
		return nil // Check refused NaN and Inf
	}
	raw := d.X.RawMatrix()
	var (
		mu    sync.Mutex
		first = raw.Rows // the row of err
		err   error
	)
	inParts(raw.Rows, raw.Cols, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			if e := checkFinite(raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols]); e != nil {
				mu.Lock()
				defer mu.Unlock()
				if i < first { // the first in row order, whichever part finds it first
					first, err = i, e
				}
				return
			}
		}
	})
	return err
}
