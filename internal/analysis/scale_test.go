package analysis

import (
	"context"
	"errors"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestFitRefusesBadScale checks that features whose squares overflow or
// underflow float64 are refused with a sentence that names the feature and
// says to rescale, for every method, instead of "rank 0" or a non-finite
// matrix.
func TestFitRefusesBadScale(t *testing.T) {
	base := []float64{1, 2, 3, 2, 1, 0, 3, 3, 1, 0, 1, 2, 5, 1, 1, 2, 2, 4}
	y := mat.NewDense(6, 2, []float64{1, 0, 0, 1, 1, 1, 0, 0, 1, 0, 0, 1})
	scaled := func(col int, s float64) *mat.Dense {
		x := mat.NewDense(6, 3, append([]float64(nil), base...))
		for i := range 6 {
			x.Set(i, col, x.At(i, col)*s)
		}
		return x
	}
	names := []string{"Att1", "Att2", "Att3"}
	for _, tc := range []struct {
		name  string
		x     *mat.Dense
		names []string
		want  string
	}{
		{"overflow", scaled(2, 1e300), names, `feature "Att3" has values up to 4e+300 in magnitude; with 6 rows the sums of their squares overflow float64`},
		{"overflow near the limit", scaled(0, 1e160), nil, "feature 1 has values up to 5e+160 in magnitude"},
		{"underflow", scaled(1, 1e-300), names, `feature "Att2" has no value larger than 3e-300 in magnitude; their squares underflow float64`},
		{"underflow everywhere", mat.NewDense(6, 3, scaledAll(base, 1e-200)), nil, "feature 1 has no value larger than 5e-200"},
	} {
		for _, id := range []string{"pca", "mddmp", "cca", "cplst"} {
			t.Run(tc.name+"/"+id, func(t *testing.T) {
				_, err := Fit(context.Background(), id, Input{X: tc.x, Y: y, FeatureNames: tc.names}, Params{D: 1}, nil)
				var e *Error
				if !errors.As(err, &e) || e.Kind != Unservable {
					t.Fatalf("got %v, want an unservable *Error", err)
				}
				if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "rescale the features") {
					t.Errorf("got %q, want it to contain %q and say to rescale", err, tc.want)
				}
			})
		}
	}
	t.Run("ordinary scales fit", func(t *testing.T) {
		for _, s := range []float64{1e-150, 1e150} {
			if _, err := Fit(context.Background(), "pca", Input{X: mat.NewDense(6, 3, scaledAll(base, s)), Y: y}, Params{D: 1}, nil); err != nil {
				t.Errorf("scale %g: got %v, want a fit", s, err)
			}
		}
	})
}

func scaledAll(v []float64, s float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = x * s
	}
	return out
}
