// Package preprocess scales the columns of a feature matrix: a Scaler is
// fitted on some rows (a fold's training part) and applied to others (its
// test part, new rows), so that nothing of the rows it is applied to leaks
// into it.
//
// The kinds match scikit-learn 1.2's scalers on every column that is not
// constant on the rows fitted on:
//
//   - "none": the identity (the reference protocol of the papers);
//   - "standardize": sklearn.preprocessing.StandardScaler — the training
//     mean and the population standard deviation (divisor N, ddof = 0);
//   - "minmax": sklearn.preprocessing.MinMaxScaler with feature_range
//     (0, 1) — the training minimum to 0, the training maximum to 1 (rows
//     it is applied to may fall outside [0, 1]).
//
// A column constant on the fitted rows (maximum = minimum; for standardize
// also a variance within rounding error, as scikit-learn decides) carries nothing
// the model can be fitted on: it maps to 0 on every row, training or not,
// and the Scaler's Note says so. (scikit-learn keeps a scale of 1 there,
// so a test row's value minus the training value comes through; here it
// does not.) A column whose scaling overflows float64 (standardize's sums,
// minmax's range or its reciprocal) is refused with the column named, not
// taken for constant nor scaled to NaN.
package preprocess

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// The kinds of preprocessing.
const (
	None        = "none"
	Standardize = "standardize"
	MinMax      = "minmax"
)

// Kinds lists the kinds, the default first.
func Kinds() []string { return []string{None, Standardize, MinMax} }

// Valid reports whether kind is one of Kinds; "" counts as None.
func Valid(kind string) bool {
	return kind == "" || kind == None || kind == Standardize || kind == MinMax
}

// noteNames is how many constant columns a note names.
const noteNames = 5

// Scaler maps a row x to z with z_j = (x_j − Offset_j) · Scale_j. It is
// written as it is into a job's manifest (model.json, field "preprocess").
type Scaler struct {
	// Kind is None, Standardize or MinMax.
	Kind string `json:"kind"`
	// Offset and Scale have one value per column; both are empty for None.
	// Standardize: the mean and 1 / the population standard deviation;
	// MinMax: the minimum and 1 / (maximum − minimum); a constant column
	// has Scale 0.
	Offset []float64 `json:"offset,omitempty"`
	Scale  []float64 `json:"scale,omitempty"`
	// Constant lists the (0-based) columns constant on the fitted rows.
	Constant []int `json:"constant,omitempty"`
	// Note says which columns are constant, for the user; empty when none.
	Note string `json:"note,omitempty"`
}

// Fit fits a scaler of the given kind ("" means None) on the rows of x
// (N×D). names, when not nil, are the D column names the note and the
// errors quote. x is not changed. It fails when the kind is unknown, x has
// no row, names has not D entries, x holds a NaN or an infinity (the error
// names the row and column, 1-based), or a column's scaling overflows
// float64 (see overflow; the error names the column, as the methods'
// own check of the unscaled features does).
func Fit(x *mat.Dense, kind string, names []string) (*Scaler, error) {
	if kind == "" {
		kind = None
	}
	if !Valid(kind) {
		return nil, fmt.Errorf("preprocess: the kind must be none, standardize or minmax, not %q", kind)
	}
	n, d := x.Dims()
	if names != nil && len(names) != d {
		return nil, fmt.Errorf("preprocess: %d column names for %d columns", len(names), d)
	}
	s := &Scaler{Kind: kind}
	if kind == None {
		return s, nil
	}
	if n == 0 {
		return nil, fmt.Errorf("preprocess: no row to fit the %s scaling on", kind)
	}
	lo, hi, sum := make([]float64, d), make([]float64, d), make([]float64, d)
	copy(lo, x.RawRowView(0))
	copy(hi, x.RawRowView(0))
	for i := range n {
		for j, v := range x.RawRowView(i) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("preprocess: row %d, column %d holds %v; the %s scaling needs finite values", i+1, j+1, v, kind)
			}
			lo[j], hi[j] = min(lo[j], v), max(hi[j], v)
			sum[j] += v
		}
	}
	s.Offset, s.Scale = make([]float64, d), make([]float64, d)
	switch kind {
	case Standardize:
		sq := make([]float64, d)
		for j := range d {
			s.Offset[j] = sum[j] / float64(n)
		}
		for i := range n { // two passes: the squares of the centred values
			for j, v := range x.RawRowView(i) {
				c := v - s.Offset[j]
				sq[j] += c * c
			}
		}
		for j := range d {
			if !finite(sum[j]) || !finite(sq[j]) {
				return nil, overflow(kind, lo[j], hi[j], n, columnName(names, j))
			}
			if v := sq[j] / float64(n); hi[j] > lo[j] && !withinRounding(v, s.Offset[j], n) {
				s.Scale[j] = 1 / math.Sqrt(v)
			}
		}
	case MinMax:
		for j := range d {
			s.Offset[j] = lo[j]
			if hi[j] > lo[j] {
				s.Scale[j] = 1 / (hi[j] - lo[j])
			}
			if !finite(hi[j]-lo[j]) || !finite(s.Scale[j]) {
				return nil, overflow(kind, lo[j], hi[j], n, columnName(names, j))
			}
		}
	}
	for j := range d {
		if s.Scale[j] == 0 {
			s.Constant = append(s.Constant, j)
		}
	}
	s.Note = constantNote(kind, s.Constant, names)
	return s, nil
}

// overflow is the refusal of a column whose scaling overflowed float64:
// for standardize the sum of its values or of the squares of its centred
// values, for minmax its range or the range's reciprocal. lo and hi are
// the column's extremes on the n rows fitted on, name names it. Such a
// column is not constant, nor is its mean NaN: it is refused as the
// methods refuse unscaled features whose squares overflow (analysis,
// Input.checkScale), with the feature named and the magnitudes that fit.
func overflow(kind string, lo, hi float64, n int, name string) error {
	m := max(-lo, hi)
	switch {
	case kind == Standardize:
		// A centred value is at most 2m, and n of their squares are summed.
		big := math.Sqrt(math.MaxFloat64 / (4 * float64(n)))
		also := ""
		if hi-lo <= math.MaxFloat64 {
			also = ", or choose preprocess minmax, whose arithmetic holds this range"
		}
		return fmt.Errorf("preprocess: %s has values up to %.3g in magnitude; with %d rows the sums of their squares in the standardize scaling overflow float64 "+
			"(values must stay below %.3g): rescale the features before you upload them, e.g. divide the column by a power of ten%s", name, m, n, big, also)
	case hi-lo > math.MaxFloat64:
		return fmt.Errorf("preprocess: %s has values from %.3g to %.3g; their range overflows float64 in the minmax scaling "+
			"(values must stay below %.3g in magnitude): rescale the features before you upload them, e.g. divide the column by a power of ten", name, lo, hi, math.MaxFloat64/2)
	default:
		return fmt.Errorf("preprocess: %s has values from %.3g to %.3g, a range so small that its reciprocal overflows float64 in the minmax scaling "+
			"(the range must be at least %.3g): rescale the features before you upload them, e.g. multiply the column by a power of ten", name, lo, hi, 1/math.MaxFloat64)
	}
}

// finite reports whether v is neither infinite nor NaN.
func finite(v float64) bool { return v-v == 0 }

// columnName names column j (0-based) for a message, as the methods name
// a feature: by its name when names has one, else by its 1-based position.
func columnName(names []string, j int) string {
	if j < len(names) {
		return fmt.Sprintf("feature %q", names[j])
	}
	return fmt.Sprintf("feature %d", j+1)
}

// withinRounding reports whether a variance v of n values with mean mu is
// no more than the rounding error of computing it, as scikit-learn 1.2's
// _is_constant_feature decides (n·ε·v + (n·μ·ε)²), so that a column whose
// values differ only in their last bits counts as constant there too.
func withinRounding(v, mu float64, n int) bool {
	const eps = 0x1p-52
	nf := float64(n)
	return v <= nf*eps*v+(nf*mu*eps)*(nf*mu*eps)
}

// constantNote says how many columns are constant and names the first few.
func constantNote(kind string, constant []int, names []string) string {
	if len(constant) == 0 {
		return ""
	}
	var quoted []string
	for _, j := range constant[:min(len(constant), noteNames)] {
		name := fmt.Sprintf("column %d", j+1)
		if names != nil {
			name = names[j]
		}
		quoted = append(quoted, name)
	}
	list := strings.Join(quoted, ", ")
	if len(constant) > noteNames {
		list += fmt.Sprintf(" and %d more", len(constant)-noteNames)
	}
	if len(constant) == 1 {
		return fmt.Sprintf("%s: 1 feature is constant on the training rows and is set to 0 (%s)", kind, list)
	}
	return fmt.Sprintf("%s: %d features are constant on the training rows and are set to 0 (%s)", kind, len(constant), list)
}

// Columns is the number of columns the scaler was fitted on; 0 for None,
// which takes any.
func (s *Scaler) Columns() int { return len(s.Scale) }

// Apply returns x (N×D) scaled, as a new matrix; x is not changed. D must
// be the number of columns the scaler was fitted on (None takes any);
// another panics.
func (s *Scaler) Apply(x *mat.Dense) *mat.Dense {
	z := mat.DenseCopyOf(x)
	s.ApplyInPlace(z)
	return z
}

// ApplyInPlace scales x (N×D) in place, for a caller that owns a copy
// already. D must be the number of columns the scaler was fitted on (None
// takes any); another panics.
func (s *Scaler) ApplyInPlace(x *mat.Dense) {
	if s.Kind == None || s.Kind == "" {
		return
	}
	n, d := x.Dims()
	if d != len(s.Scale) || d != len(s.Offset) {
		panic(fmt.Sprintf("preprocess: a scaler fitted on %d columns applied to %d", len(s.Scale), d))
	}
	for i := range n {
		row := x.RawRowView(i)
		for j, v := range row {
			row[j] = (v - s.Offset[j]) * s.Scale[j]
		}
	}
}
