package dataset_test

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/dataset"
)

// inputErr is the *dataset.InputError a case expects. Msg is a phrase the
// error's Msg must contain, not the whole sentence.
type inputErr struct {
	Line   int
	Column string
	Field  string
	Msg    string
}

// checkInputError fails t unless err is an *InputError matching want.
func checkInputError(t *testing.T, err error, want inputErr) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want an *InputError containing %q", want.Msg)
	}
	var ie *dataset.InputError
	if !errors.As(err, &ie) {
		t.Fatalf("got error %q of type %T, want an *InputError", err, err)
	}
	if ie.Line != want.Line {
		t.Errorf("Line: got %d, want %d (error %q)", ie.Line, want.Line, err)
	}
	if ie.Column != want.Column {
		t.Errorf("Column: got %q, want %q (error %q)", ie.Column, want.Column, err)
	}
	if ie.Field != want.Field {
		t.Errorf("Field: got %q, want %q (error %q)", ie.Field, want.Field, err)
	}
	if !strings.Contains(ie.Msg, want.Msg) {
		t.Errorf("Msg: got %q, want it to contain %q", ie.Msg, want.Msg)
	}
}

// refusal is a case of input the loader must refuse.
type refusal struct {
	name string
	in   string
	opts dataset.Options
	want inputErr
}

// checkRefusals loads each case's input and checks its *InputError.
func checkRefusals(t *testing.T, tests []refusal) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ds, err := load(tc.in, tc.opts)
			if err == nil {
				t.Fatalf("got a %d×%d data set, want an error", ds.Rows(), ds.Features.Len())
			}
			checkInputError(t, err, tc.want)
		})
	}
}

// load reads s with opts.
func load(s string, opts dataset.Options) (*dataset.Dataset, error) {
	return dataset.Load(strings.NewReader(s), opts)
}

// mustLoad reads s with opts, failing t on an error or on a data set that
// does not pass Validate.
func mustLoad(t *testing.T, s string, opts dataset.Options) *dataset.Dataset {
	t.Helper()
	ds, err := load(s, opts)
	if err != nil {
		t.Fatalf("Load: got error %q, want none", err)
	}
	if err := ds.Validate(); err != nil {
		t.Fatalf("Validate: got %q, want nil", err)
	}
	return ds
}

// rowsOf returns m as a slice of rows.
func rowsOf(m *mat.Dense) [][]float64 {
	if m == nil {
		return nil
	}
	r, c := m.Dims()
	out := make([][]float64, r)
	for i := range r {
		out[i] = make([]float64, c)
		for j := range c {
			out[i][j] = m.At(i, j)
		}
	}
	return out
}

// checkMatrix fails t unless m holds exactly want (bit for bit, so -0 and 0
// differ).
func checkMatrix(t *testing.T, what string, m *mat.Dense, want [][]float64) {
	t.Helper()
	got := rowsOf(m)
	if len(got) != len(want) {
		t.Fatalf("%s: got %d rows, want %d (got %v, want %v)", what, len(got), len(want), got, want)
	}
	for i := range got {
		if len(got[i]) != len(want[i]) {
			t.Fatalf("%s row %d: got %d columns, want %d (got %v, want %v)", what, i, len(got[i]), len(want[i]), got[i], want[i])
		}
		for j := range got[i] {
			if math.Float64bits(got[i][j]) != math.Float64bits(want[i][j]) {
				t.Errorf("%s[%d][%d]: got %v, want %v", what, i, j, got[i][j], want[i][j])
			}
		}
	}
}

// checkStrings fails t unless got equals want.
func checkStrings(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s: got %q, want %q", what, got, want)
	}
}

// checkWarning fails t unless one of ds's warnings contains phrase.
func checkWarning(t *testing.T, ds *dataset.Dataset, phrase string) {
	t.Helper()
	for _, w := range ds.Warnings {
		if strings.Contains(w, phrase) {
			return
		}
	}
	t.Errorf("Warnings: got %q, want one containing %q", ds.Warnings, phrase)
}

// sameBits reports whether a and b hold the same values bit for bit.
func sameBits(a, b *mat.Dense) bool {
	ar, ac := a.Dims()
	br, bc := b.Dims()
	if ar != br || ac != bc {
		return false
	}
	for i := range ar {
		for j := range ac {
			if math.Float64bits(a.At(i, j)) != math.Float64bits(b.At(i, j)) {
				return false
			}
		}
	}
	return true
}
