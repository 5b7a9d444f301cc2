package evaluate

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Undefined metrics.
//
// A metric that the test rows do not define (the ranking metrics when no
// test row has a relevant label, or every row has all labels or none; the
// propensity-scored ones when no test row has a label, or the training
// part has too few rows for the propensities) is
// NaN in Row.Metrics, null in JSON, and left out of the means over folds;
// Run adds a note saying why. It is never given a made-up value such as a
// coverage of −1.

// rowFields is Row without its methods, so that rowJSON can embed its
// fields: every field of Row is in its JSON but Metrics and Std, which
// rowJSON's own fields of the same names shadow.
type rowFields Row

// rowJSON is Row as JSON: NaN metrics are null.
type rowJSON struct {
	rowFields
	Metrics map[string]*float64 `json:"metrics"`
	Std     map[string]*float64 `json:"std,omitempty"`
}

// MarshalJSON writes the row with each undefined (NaN) metric as null.
func (r Row) MarshalJSON() ([]byte, error) {
	return json.Marshal(rowJSON{rowFields: rowFields(r), Metrics: nullNaN(r.Metrics), Std: nullNaN(r.Std)})
}

// UnmarshalJSON reads a row written by MarshalJSON: a null metric is NaN.
func (r *Row) UnmarshalJSON(b []byte) error {
	var j rowJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*r = Row(j.rowFields)
	r.Metrics, r.Std = nanNull(j.Metrics), nanNull(j.Std)
	return nil
}

func nullNaN(m map[string]float64) map[string]*float64 {
	if m == nil {
		return nil
	}
	out := make(map[string]*float64, len(m))
	for k, v := range m {
		if !math.IsNaN(v) {
			out[k] = &v
		} else {
			out[k] = nil
		}
	}
	return out
}

func nanNull(m map[string]*float64) map[string]float64 {
	if m == nil {
		return nil
	}
	out := make(map[string]float64, len(m))
	for k, v := range m {
		out[k] = math.NaN()
		if v != nil {
			out[k] = *v
		}
	}
	return out
}

// whyUndefined says why the metrics of a fold that are NaN are undefined,
// one sentence per reason, for the notes.
func whyUndefined(metrics map[string]float64, split string) []string {
	var ranking []string
	var notes []string
	for _, k := range []string{OneError, RankingLoss, AveragePrecision, Coverage} {
		if v, ok := metrics[k]; !ok || !math.IsNaN(v) {
			continue
		}
		if k == Coverage {
			notes = append(notes, "coverage is undefined on "+split+": no test row has a relevant label; the mean is over the folds where it is defined")
			continue
		}
		ranking = append(ranking, k)
	}
	if len(ranking) > 0 {
		notes = append([]string{strings.Join(ranking, ", ") + " " + isAre(len(ranking)) + " undefined on " + split +
			": every test row has all labels or none; the mean is over the folds where it is defined"}, notes...)
	}
	var ps []string
	for _, k := range XCMetricKeys {
		if v, ok := metrics[k]; ok && math.IsNaN(v) && isPropensityScored(k) {
			ps = append(ps, k)
		}
	}
	if len(ps) > 0 {
		// Both sides of their ratio are 0 without a labelled test row;
		// with one (coverage defined), the training part was too small.
		why := "no test row has a relevant label"
		if v, ok := metrics[Coverage]; ok && !math.IsNaN(v) {
			why = fmt.Sprintf("its training part has fewer than %d rows, too few for the propensities (ln N − 1 must be positive)", MinPropensityRows)
		}
		notes = append(notes, strings.Join(ps, ", ")+" "+isAre(len(ps))+" undefined on "+split+": "+why+"; the mean is over the folds where "+itThey(len(ps))+" defined")
	}
	return notes
}

func itThey(n int) string {
	if n == 1 {
		return "it is"
	}
	return "they are"
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// meanStd is the mean and sample standard deviation of the defined
// (non-NaN) values: NaN when none is defined, and a NaN standard deviation
// with fewer than two.
func meanStd(vals []float64) (mean, std float64) {
	vals = slices.DeleteFunc(slices.Clone(vals), math.IsNaN)
	if len(vals) == 0 {
		return math.NaN(), math.NaN()
	}
	s := 0.0
	for _, v := range vals {
		s += v
	}
	mean = s / float64(len(vals))
	if len(vals) < 2 {
		return mean, math.NaN()
	}
	v := 0.0
	for _, x := range vals {
		v += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(v / float64(len(vals)-1))
}
