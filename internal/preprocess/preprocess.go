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
// does not.)
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
// (N×D). names, when not nil, are the D column names the note quotes. x is
// not changed. It fails when the kind is unknown, x has no row, names has
// not D entries, or x holds a NaN or an infinity (the error names the row
// and column, 1-based).
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
