package sparse

import (
	"errors"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestFromDenseRoundTrip(t *testing.T) {
	x := mat.NewDense(3, 4, []float64{
		0, 1.5, 0, 0,
		0, 0, 0, 0,
		-2, 0, 0, 3,
	})
	m := FromDense(x)
	if err := m.Check(); err != nil {
		t.Fatal(err)
	}
	if m.NNZ() != 3 {
		t.Fatalf("NNZ = %d, want 3", m.NNZ())
	}
	if got, want := m.Density(), 3.0/12; got != want {
		t.Errorf("Density = %v, want %v", got, want)
	}
	if !mat.Equal(m.Dense(), x) {
		t.Errorf("Dense() = %v, want %v", mat.Formatted(m.Dense()), mat.Formatted(x))
	}
	for i := range 3 {
		for j := range 4 {
			if got, want := m.At(i, j), x.At(i, j); got != want {
				t.Errorf("At(%d, %d) = %v, want %v", i, j, got, want)
			}
		}
	}
	b := NewBuilder(4, 0)
	b.Add(1, 1.5)
	b.EndRow()
	b.EndRow()
	b.Add(0, -2)
	b.Add(2, 0) // skipped
	b.Add(3, 3)
	b.EndRow()
	built := b.Build()
	if !mat.Equal(built.Dense(), x) || built.NNZ() != 3 || built.R != 3 {
		t.Errorf("built %d rows with %d entries: %v", built.R, built.NNZ(), mat.Formatted(built.Dense()))
	}
}

func TestCheck(t *testing.T) {
	good := func() *CSR {
		return &CSR{R: 2, C: 3, Ptr: []int64{0, 2, 3}, Ind: []int32{0, 2, 1}, Val: []float64{1, 2, 3}}
	}
	for _, tc := range []struct {
		name   string
		mutate func(m *CSR)
		want   string
	}{
		{"lengths", func(m *CSR) { m.Ptr = m.Ptr[:2] }, "row pointers"},
		{"end", func(m *CSR) { m.Ptr[2] = 2 }, "run from 0 to 2"},
		{"descending", func(m *CSR) { m.Ind[0], m.Ind[1] = 2, 0 }, "row 1 lists column 1 after column 3"},
		{"repeated", func(m *CSR) { m.Ind[1] = 0 }, "row 1 lists column 1 after column 1"},
		{"outside", func(m *CSR) { m.Ind[2] = 3 }, "row 2 has column 4 outside 1…3"},
		{"nan", func(m *CSR) { m.Val[2] = math.NaN() }, "row 2, column 2 holds NaN"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := good()
			if err := m.Check(); err != nil {
				t.Fatalf("good matrix: %v", err)
			}
			tc.mutate(m)
			err := m.Check()
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("Check() = %v, want ErrMalformed", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Check() = %q, want it to say %q", err, tc.want)
			}
		})
	}
}
