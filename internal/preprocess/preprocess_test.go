package preprocess

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

type sklearnGolden struct {
	Sklearn     string      `json:"sklearn"`
	Train       [][]float64 `json:"train"`
	Test        [][]float64 `json:"test"`
	Standardize struct {
		Mean     []float64   `json:"mean"`
		Scale    []float64   `json:"scale"`
		Constant []int       `json:"constant"`
		Train    [][]float64 `json:"train"`
		Test     [][]float64 `json:"test"`
	} `json:"standardize"`
	MinMax struct {
		Min      []float64   `json:"min"`
		Max      []float64   `json:"max"`
		Constant []int       `json:"constant"`
		Train    [][]float64 `json:"train"`
		Test     [][]float64 `json:"test"`
	} `json:"minmax"`
}

func dense(rows [][]float64) *mat.Dense {
	m := mat.NewDense(len(rows), len(rows[0]), nil)
	for i, r := range rows {
		m.SetRow(i, r)
	}
	return m
}

// TestGolden holds Fit and Apply to scikit-learn 1.2.1's StandardScaler and
// MinMaxScaler (testdata/scalers.py → scalers.json): the same parameters,
// the same scaled training and test rows on every column sklearn does not
// deem constant, and 0 on the constant ones (where sklearn keeps x − offset).
func TestGolden(t *testing.T) {
	b, err := os.ReadFile("testdata/scalers.json")
	if err != nil {
		t.Fatal(err)
	}
	var g sklearnGolden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	train, test := dense(g.Train), dense(g.Test)
	trainCopy := mat.DenseCopyOf(train)
	for _, tc := range []struct {
		kind                string
		constant            []int
		offset              []float64
		spread              []float64 // 1/Scale on non-constant columns
		wantTrain, wantTest [][]float64
	}{
		{Standardize, g.Standardize.Constant, g.Standardize.Mean, g.Standardize.Scale, g.Standardize.Train, g.Standardize.Test},
		{MinMax, g.MinMax.Constant, g.MinMax.Min, sub(g.MinMax.Max, g.MinMax.Min), g.MinMax.Train, g.MinMax.Test},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			s, err := Fit(train, tc.kind, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(s.Constant, tc.constant) {
				t.Errorf("constant columns: got %v, want %v (sklearn %s)", s.Constant, tc.constant, g.Sklearn)
			}
			for j := range tc.offset {
				if !close(s.Offset[j], tc.offset[j], 1e-12) {
					t.Errorf("offset of column %d: got %v, want %v", j, s.Offset[j], tc.offset[j])
				}
				if slices.Contains(tc.constant, j) {
					if s.Scale[j] != 0 {
						t.Errorf("scale of constant column %d: got %v, want 0", j, s.Scale[j])
					}
				} else if !close(1/s.Scale[j], tc.spread[j], 1e-12) {
					t.Errorf("1/scale of column %d: got %v, want %v", j, 1/s.Scale[j], tc.spread[j])
				}
			}
			for _, part := range []struct {
				name string
				x    *mat.Dense
				want [][]float64
			}{{"train", train, tc.wantTrain}, {"test", test, tc.wantTest}} {
				z := s.Apply(part.x)
				for i, row := range part.want {
					for j, want := range row {
						if slices.Contains(tc.constant, j) {
							want = 0
						}
						if got := z.At(i, j); !close(got, want, 1e-12) {
							t.Errorf("%s row %d column %d: got %v, want %v", part.name, i, j, got, want)
						}
					}
				}
			}
			if !mat.Equal(train, trainCopy) {
				t.Error("Fit or Apply changed its input")
			}
		})
	}
}

func sub(a, b []float64) []float64 {
	out := make([]float64, len(a))
	for i := range a {
		out[i] = a[i] - b[i]
	}
	return out
}

// close compares with a relative tolerance (absolute below 1).
func close(got, want, tol float64) bool {
	return math.Abs(got-want) <= tol*max(1, math.Abs(want))
}

func TestNone(t *testing.T) {
	x := mat.NewDense(2, 3, []float64{1, 2, 3, 4, 5, 6})
	for _, kind := range []string{"", None} {
		s, err := Fit(x, kind, nil)
		if err != nil {
			t.Fatal(err)
		}
		if s.Kind != None || s.Offset != nil || s.Scale != nil || s.Note != "" {
			t.Errorf("Fit(%q): got %+v, want kind none and nothing else", kind, s)
		}
		z := s.Apply(mat.NewDense(1, 5, []float64{1, 2, 3, 4, 5})) // any width
		if z.At(0, 4) != 5 {
			t.Errorf("none changed a value: got %v", mat.Formatted(z))
		}
	}
}

func TestApplyIsANewMatrix(t *testing.T) {
	x := mat.NewDense(3, 2, []float64{0, 10, 1, 20, 2, 30})
	s, err := Fit(x, MinMax, nil)
	if err != nil {
		t.Fatal(err)
	}
	z := s.Apply(x)
	if x.At(2, 1) != 30 || z.At(2, 1) != 1 || z.At(1, 0) != 0.5 {
		t.Errorf("got x %v and z %v, want x untouched and z in [0, 1]", mat.Formatted(x), mat.Formatted(z))
	}
	s.ApplyInPlace(x)
	if !mat.Equal(x, z) {
		t.Errorf("ApplyInPlace: got %v, want %v", mat.Formatted(x), mat.Formatted(z))
	}
}

func TestConstantNote(t *testing.T) {
	cols := func(n int) []string {
		var s []string
		for j := range n {
			s = append(s, fmt.Sprintf("f%d", j+1))
		}
		return s
	}
	for _, tc := range []struct {
		name     string
		constant int // the first columns constant, of 8
		names    []string
		kind     string
		want     string
	}{
		{"none constant", 0, cols(8), Standardize, ""},
		{"one", 1, cols(8), MinMax, "minmax: 1 feature is constant on the training rows and is set to 0 (f1)"},
		{"three", 3, cols(8), Standardize, "standardize: 3 features are constant on the training rows and are set to 0 (f1, f2, f3)"},
		{"seven", 7, cols(8), Standardize, "standardize: 7 features are constant on the training rows and are set to 0 (f1, f2, f3, f4, f5 and 2 more)"},
		{"no names", 2, nil, MinMax, "minmax: 2 features are constant on the training rows and are set to 0 (column 1, column 2)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := mat.NewDense(4, 8, nil)
			for i := range 4 {
				for j := range 8 {
					if j >= tc.constant {
						x.Set(i, j, float64(i*(j+1)))
					} else {
						x.Set(i, j, 7)
					}
				}
			}
			s, err := Fit(x, tc.kind, tc.names)
			if err != nil {
				t.Fatal(err)
			}
			if s.Note != tc.want {
				t.Errorf("got note %q, want %q", s.Note, tc.want)
			}
			if len(s.Constant) != tc.constant {
				t.Errorf("got constant %v, want the first %d columns", s.Constant, tc.constant)
			}
			z := s.Apply(mat.NewDense(1, 8, []float64{100, 100, 100, 100, 100, 100, 100, 100}))
			for j := range tc.constant {
				if z.At(0, j) != 0 {
					t.Errorf("a new row's constant column %d: got %v, want 0", j, z.At(0, j))
				}
			}
		})
	}
}

func TestFitRefusals(t *testing.T) {
	x := mat.NewDense(2, 2, []float64{1, 2, 3, math.NaN()})
	for _, tc := range []struct {
		name  string
		x     *mat.Dense
		kind  string
		names []string
		want  string
	}{
		{"kind", mat.NewDense(1, 1, nil), "zscore", nil, `the kind must be none, standardize or minmax, not "zscore"`},
		{"names", mat.NewDense(1, 2, nil), Standardize, []string{"a"}, "1 column names for 2 columns"},
		{"nan", x, Standardize, nil, "row 2, column 2 holds NaN"},
		{"inf", mat.NewDense(1, 1, []float64{math.Inf(-1)}), MinMax, nil, "row 1, column 1 holds -Inf"},
		{"no rows", &mat.Dense{}, MinMax, nil, "no row to fit the minmax scaling on"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Fit(tc.x, tc.kind, tc.names)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// TestFitOverflow: a column whose scaling overflows float64 is refused
// with the feature named, its magnitudes and what fits, never called
// constant nor scaled to NaN; columns just inside float64 are scaled.
func TestFitOverflow(t *testing.T) {
	col := func(v ...float64) *mat.Dense { return mat.NewDense(len(v), 1, v) }
	names := []string{"big"}
	for _, tc := range []struct {
		name  string
		x     *mat.Dense
		kind  string
		names []string
		want  string // the error; "" for none
	}{
		{"standardize ±1e300", col(1e300, -1e300, 1e300, -1e300), Standardize, names,
			`preprocess: feature "big" has values up to 1e+300 in magnitude; with 4 rows the sums of their squares in the standardize scaling overflow float64 ` +
				`(values must stay below 3.35e+153): rescale the features before you upload them, e.g. divide the column by a power of ten, ` +
				`or choose preprocess minmax, whose arithmetic holds this range`},
		{"standardize ±1e308", col(1e308, -1e308, 1e308, -1e308), Standardize, names,
			`preprocess: feature "big" has values up to 1e+308 in magnitude; with 4 rows the sums of their squares in the standardize scaling overflow float64 ` +
				`(values must stay below 3.35e+153): rescale the features before you upload them, e.g. divide the column by a power of ten`},
		{"standardize, the sum of the values", col(1e308, 1.5e308, 1e308), Standardize, nil,
			`preprocess: feature 1 has values up to 1.5e+308 in magnitude; with 3 rows the sums of their squares in the standardize scaling overflow float64`},
		{"standardize 1e160", col(0, 1e160, 0, 1e160), Standardize, names, `preprocess: feature "big" has values up to 1e+160 in magnitude`},
		{"standardize just inside", col(1e153, -1e153, 1e153, -1e153), Standardize, names, ""},
		{"minmax ±1e308", col(1e308, -1e308, 5), MinMax, names,
			`preprocess: feature "big" has values from -1e+308 to 1e+308; their range overflows float64 in the minmax scaling ` +
				`(values must stay below 8.99e+307 in magnitude): rescale the features before you upload them, e.g. divide the column by a power of ten`},
		{"minmax, a range below 1/MaxFloat64", col(0, 1e-310, 0), MinMax, nil,
			`preprocess: feature 1 has values from 0 to 1e-310, a range so small that its reciprocal overflows float64 in the minmax scaling ` +
				`(the range must be at least 5.56e-309): rescale the features before you upload them, e.g. multiply the column by a power of ten`},
		{"minmax ±1e300", col(1e300, -1e300, 0), MinMax, names, ""},
		{"minmax 1e-300", col(0, 1e-300, 0), MinMax, names, ""},
		{"minmax constant 1e308", col(1e308, 1e308), MinMax, names, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Fit(tc.x, tc.kind, tc.names)
			if tc.want != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
					t.Fatalf("got %v, want %s", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatalf("got %v, want no error", err)
			}
			z := s.Apply(tc.x)
			for i := range z.RawMatrix().Rows {
				if v := z.At(i, 0); math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > 1.5 {
					t.Errorf("row %d: got %v, want a scaled value", i+1, v)
				}
			}
		})
	}
}

func TestApplyWrongWidthPanics(t *testing.T) {
	s, err := Fit(mat.NewDense(2, 2, []float64{1, 2, 3, 4}), Standardize, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if recover() == nil {
			t.Error("got no panic applying a 2-column scaler to 3 columns, want one")
		}
	}()
	s.Apply(mat.NewDense(1, 3, nil))
}

func ExampleFit() {
	train := mat.NewDense(3, 2, []float64{
		1, 5,
		2, 5,
		3, 5,
	})
	s, _ := Fit(train, Standardize, []string{"height", "width"})
	fmt.Println(s.Note)
	z := s.Apply(mat.NewDense(1, 2, []float64{4, 6}))
	fmt.Printf("%.4f\n", mat.Formatted(z))
	// Output:
	// standardize: 1 feature is constant on the training rows and is set to 0 (width)
	// [2.4495  0.0000]
}
