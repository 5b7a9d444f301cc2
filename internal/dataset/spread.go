package dataset

import "math"

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
// column for dense X; sums of the stored entries for sparse).
func columnSpread(d *Dataset) *Spread {
	n, nf := d.featureDims()
	if n == 0 || nf < 2 {
		return nil
	}
	std := make([]float64, nf)
	if d.Sparse != nil {
		sum, sq := make([]float64, nf), make([]float64, nf)
		for k, j := range d.Sparse.Ind {
			v := d.Sparse.Val[k]
			sum[j] += v
			sq[j] += v * v
		}
		for j := range nf {
			m := sum[j] / float64(n)
			std[j] = math.Sqrt(max(0, sq[j]/float64(n)-m*m))
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
			std[j] = math.Sqrt(m2[j] / float64(n))
		}
	}
	wide, narrow := -1, -1
	for j, s := range std {
		// A column constant up to rounding is constant, not narrow.
		if !(s > 1e-12) || math.IsInf(s, 0) {
			continue
		}
		if wide < 0 || s > std[wide] {
			wide = j
		}
		if narrow < 0 || s < std[narrow] {
			narrow = j
		}
	}
	if wide < 0 || wide == narrow {
		return nil
	}
	return &Spread{Widest: d.Features.At(wide), WidestStd: std[wide], Narrowest: d.Features.At(narrow), NarrowestStd: std[narrow],
		Ratio: std[wide] / std[narrow]}
}
