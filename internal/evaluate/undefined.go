package evaluate

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
)

// Undefined metrics.
//
// A metric that the test rows do not define (the ranking metrics when no
// test row has a relevant label, or every row has all labels or none) is
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
	return notes
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
