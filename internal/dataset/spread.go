package dataset

import (
	"math"
	"slices"
)

// SpreadHint is the ratio above which one feature's scale is said to
// dwarf another's (Summary.Spread): PCA and the other methods that use
// the features as given are then led by the widest column, and
// standardizing them is worth suggesting.
const SpreadHint = 1000

// Spread compares the scales of a data set's features: the columns with
// the largest and the smallest non-zero standard deviation (population,
// over every row) and their ratio.
type Spread struct {
	Widest       string  `json:"widest"`
	WidestStd    float64 `json:"widest_std"`
	Narrowest    string  `json:"narrowest"`
	NarrowestStd float64 `json:"narrowest_std"`
	// Ratio is WidestStd / NarrowestStd.
	Ratio float64 `json:"ratio"`
}

// Dwarfs says whether the widest column's scale dwarfs the narrowest's
// (Ratio above SpreadHint); a nil Spread does not.
func (s *Spread) Dwarfs() bool { return s != nil && s.Ratio > SpreadHint }

// columnSpread computes the Spread of d's features, nil when fewer than
// two columns vary. Dense or sparse, one pass (Welford's update a
// column for dense X; sums of the stored entries for sparse, kept only
// for the columns that hold one, so that a file declaring 2³¹ columns
// over a few entries costs what it holds).
func columnSpread(d *Dataset) *Spread {
	n, nf := d.featureDims()
	if n == 0 || nf < 2 {
		return nil
	}
	var cols []int    // the columns that may vary
	var std []float64 // their standard deviations
	if d.Sparse != nil && nf <= 4*len(d.Sparse.Ind)+1024 {
		// Arrays over the columns: no more than the entries themselves hold.
		sum, sq := make([]float64, nf), make([]float64, nf)
		for k, j := range d.Sparse.Ind {
			v := d.Sparse.Val[k]
			sum[j] += v
			sq[j] += v * v
		}
		for j := range nf {
			m := sum[j] / float64(n)
			cols = append(cols, j)
			std = append(std, math.Sqrt(max(0, sq[j]/float64(n)-m*m)))
		}
	} else if d.Sparse != nil {
		// Far more columns than entries: sums for the columns that hold one.
		type acc struct{ sum, sq float64 }
		by := map[int]*acc{}
		for k, j := range d.Sparse.Ind {
			a := by[int(j)]
			if a == nil {
				a = &acc{}
				by[int(j)] = a
				cols = append(cols, int(j))
			}
			v := d.Sparse.Val[k]
			a.sum += v
			a.sq += v * v
		}
		slices.Sort(cols)
		for _, j := range cols {
			a := by[j]
			m := a.sum / float64(n)
			std = append(std, math.Sqrt(max(0, a.sq/float64(n)-m*m)))
		}
	} else {
		raw := d.X.RawMatrix()
		mean, m2 := make([]float64, nf), make([]float64, nf)
		for i := range n {
			row := raw.Data[i*raw.Stride : i*raw.Stride+nf]
			for j, v := range row {
				dv := v - mean[j]
				mean[j] += dv / float64(i+1)
				m2[j] += dv * (v - mean[j])
			}
		}
		for j := range nf {
			cols = append(cols, j)
			std = append(std, math.Sqrt(m2[j]/float64(n)))
		}
	}
	wide, narrow := -1, -1
	for k, s := range std {
		// A column constant up to rounding is constant, not narrow.
		if !(s > 1e-12) || math.IsInf(s, 0) {
			continue
		}
		if wide < 0 || s > std[wide] {
			wide = k
		}
		if narrow < 0 || s < std[narrow] {
			narrow = k
		}
	}
	if wide < 0 || wide == narrow {
		return nil
	}
	return &Spread{Widest: d.Features.At(cols[wide]), WidestStd: std[wide], Narrowest: d.Features.At(cols[narrow]), NarrowestStd: std[narrow],
		Ratio: std[wide] / std[narrow]}
}
