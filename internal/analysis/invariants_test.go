package analysis

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// tuInputFor gives each method data it accepts.
func tuInputFor(m Method) Input { return tuInputShape(m, 150, 8) }

// tuInputShape gives each method data it accepts, n rows of d features.
func tuInputShape(m Method, n, d int) Input {
	if m.MultiLabel && m.ID != "lda" { // lda: class variables, for 2 directions
		return tuMultiLabel(31, n, d, 5)
	}
	return tuMultiDim(31, n, d, []int{3, 4, 2})
}

// generalised problems: B-orthonormal instead of orthonormal.
var tuGeneralized = map[string]bool{"mddmf": true, "mlsi": true, "cca": true, "lda": true, "mlda": true, "lpp": true}

// tuDecoded are the label-space methods with a decoder of their own
// (lsbase.go): their codes of the fit rows are orthonormal (QᵀQ = I, VᵀV
// = I) and Decoding = Zᵀ·codes, the least-squares decoder; faie's codes
// are implicit (FitCodes, not Transform).
var tuDecoded = map[string]bool{"mlcssp": true, "faie": true}

// TestInvariants checks, for every method: eigenvalues descending; the sign
// convention; PᵀP = I (or, for generalised problems, columns not
// orthonormal in general); Projected = Transform of the training rows; the
// thr rule; WithDim; progress that only grows and ends at 1; determinism.
// Both paths: N > D (the D×D one) and N < D (the N×N one, rowspace.go).
func TestInvariants(t *testing.T) {
	for _, m := range Methods() {
		for _, sh := range []struct{ n, d int }{{150, 8}, {20, 60}} {
			t.Run(fmt.Sprintf("%s/N=%d,D=%d", m.ID, sh.n, sh.d), func(t *testing.T) { invariants(t, m, tuInputShape(m, sh.n, sh.d)) })
		}
	}
}

func invariants(t *testing.T, m Method, in Input) {
	t.Helper()
	var seen []float64
	p := Params{D: 2}
	model, err := Fit(context.Background(), m.ID, in, p, func(f float64, _ string) { seen = append(seen, f) })
	if err != nil {
		t.Fatalf("Fit: %v", err)
	}
	for i := 1; i < len(seen); i++ {
		if seen[i] < seen[i-1] {
			t.Fatalf("progress went back from %v to %v", seen[i-1], seen[i])
		}
	}
	if len(seen) == 0 || seen[len(seen)-1] != 1 {
		t.Errorf("progress did not end at 1: %v", seen)
	}
	for i := 1; i < len(model.Eigenvalues); i++ {
		if model.Eigenvalues[i] > model.Eigenvalues[i-1] {
			t.Fatalf("eigenvalues not descending at %d: %v > %v", i, model.Eigenvalues[i], model.Eigenvalues[i-1])
		}
	}
	wantDim := 2
	if len(model.Blocks) > 0 { // d applies to each class variable
		wantDim = 0
		for _, b := range model.Blocks {
			wantDim += min(2, len(b.Values))
		}
	}
	if model.Dim != wantDim || model.Method != m.ID || model.Space != m.Space {
		t.Errorf("got Dim %d, Method %s, Space %s; want Dim %d", model.Dim, model.Method, model.Space, wantDim)
	}
	if model.Basis != nil {
		r, c := model.Basis.Dims()
		for k := range c {
			best, at := -1.0, 0
			for i := range r {
				if a := math.Abs(model.Basis.At(i, k)); a > best {
					best, at = a, i
				}
			}
			if model.Basis.At(at, k) <= 0 {
				t.Errorf("direction %d: its largest-magnitude entry is negative", k)
			}
		}
		switch {
		case model.Kernel != nil: // dual coefficients: αᵀK(B, B)α = I for the basis rows B
			kb, err := model.Kernel.Kernel.Rows(context.Background(), model.Kernel.Rows, model.Kernel.Rows)
			if err != nil {
				t.Fatalf("kernel of the basis rows: %v", err)
			}
			tuIsIdentity(t, "αᵀKα", tuGram(model.Basis, kb, model.Dim), 1e-8)
		case tuDecoded[m.ID]:
			tuIsIdentity(t, "codesᵀcodes", tuGram(model.Projected, nil, model.Dim), 1e-10)
			var want mat.Dense
			want.Mul(model.Projected.T(), newLabelSide(in.ones(), labelMeans01(in.ones())).dense())
			if !mat.EqualApprox(model.Decoding(), want.T(), 1e-9*math.Max(1, mat.Norm(&want, math.Inf(1)))) {
				t.Error("Decoding is not Zᵀ·codes")
			}
		case !tuGeneralized[m.ID]:
			tuIsIdentity(t, "PᵀP", tuGram(model.Basis, nil, model.Dim), 1e-10)
		}
		rows := in.X
		if m.Space == LabelSpace {
			rows = in.Y
		}
		tr, err := model.Transform(rows)
		if m.Space == LabelSpace {
			tr, err = model.FitCodes(rows)
		}
		if err != nil {
			t.Fatalf("Transform: %v", err)
		}
		if !mat.EqualApprox(tr, model.Projected, 1e-9*math.Max(1, mat.Norm(tr, math.Inf(1)))) {
			t.Error("Projected differs from Transform of the training rows")
		}
	}
	again, _ := Fit(context.Background(), m.ID, in, p, nil)
	if !mat.Equal(again.Projected, model.Projected) {
		t.Error("a second fit gave other numbers")
	}
	if len(model.Blocks) == 0 {
		w, err := model.WithDim(1)
		if err != nil {
			t.Fatalf("WithDim(1): %v", err)
		}
		first := w.P()
		if m.ID == "faie" { // its Basis is the decoder
			first = w.Decoding()
		}
		if w.Dim != 1 || (w.Basis != nil && !mat.Equal(first, sliceCols(model.Basis, 1))) {
			t.Error("WithDim(1) is not the first direction")
		}
		if _, err := model.WithDim(model.Rank + 1); err == nil {
			t.Error("WithDim(rank+1): got no error")
		}
	}
}

// TestThrRule: thr gives the smallest d whose eigenvalues keep that share of
// the positive sum.
func TestThrRule(t *testing.T) {
	for _, m := range Methods() {
		if !contains(m.Takes, ParamThr) || m.ID == "lda" {
			continue
		}
		for _, thr := range []float64{0.3, 0.8, 0.95, 1} {
			t.Run(fmt.Sprintf("%s/%v", m.ID, thr), func(t *testing.T) {
				model, err := Fit(context.Background(), m.ID, tuInputFor(m), Params{Thr: thr}, nil)
				if err != nil {
					t.Fatal(err)
				}
				total := 0.0
				for _, v := range model.Eigenvalues {
					if v > 0 {
						total += v
					}
				}
				want, kept := model.Rank, 0.0
				for i, v := range model.Eigenvalues[:model.Rank] {
					kept += max(v, 0)
					if kept >= thr*total*(1-1e-12) {
						want = i + 1
						break
					}
				}
				if model.Dim != want {
					t.Errorf("got d = %d, want %d", model.Dim, want)
				}
				if math.Abs(model.Energy-energy(model.Eigenvalues, model.Dim)) > 1e-12 || (model.Energy < thr*(1-1e-9) && model.Dim < model.Rank) {
					t.Errorf("energy %v for thr %v", model.Energy, thr)
				}
			})
		}
	}
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// TestCancellation: a canceled context stops every method, before it
// starts and in the middle (canceled from the progress callback).
func TestCancellation(t *testing.T) {
	for _, m := range Methods() {
		t.Run(m.ID, func(t *testing.T) { cancellation(t, m, tuInputFor(m)) })
		t.Run(m.ID+"/N<D", func(t *testing.T) { cancellation(t, m, tuInputShape(m, 20, 60)) })
	}
}

func cancellation(t *testing.T, m Method, in Input) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Fit(ctx, m.ID, in, Params{D: 2}, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled before: got %v, want context.Canceled", err)
	}
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	_, err := Fit(ctx, m.ID, in, Params{D: 2}, func(f float64, _ string) {
		if f > 0 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("canceled during: got %v, want context.Canceled", err)
	}
}

// TestPBOrthonormal: the generalised problems' P is B-orthonormal for the
// B of their definition.
func TestPBOrthonormal(t *testing.T) {
	in := tuMultiLabel(32, 120, 7, 4)
	xc := tuCentred(in.X)
	var c mat.Dense
	c.Mul(xc.T(), xc)
	plus := func(s float64, v float64) *mat.Dense {
		b := mat.NewDense(7, 7, nil)
		b.Scale(s, &c)
		for i := range 7 {
			b.Set(i, i, b.At(i, i)+v)
		}
		return b
	}
	for _, tc := range []struct {
		id string
		p  Params
		b  *mat.Dense
	}{
		{"mddmf", Params{D: 3, Beta: Float(0.4)}, plus(0.4, 0.6)},
		{"mlsi", Params{D: 3, Normalize: NormalizeB}, plus(1, DefaultMLSIRidge)},
		{"cca", Params{D: 3, Normalize: NormalizeB}, plus(1, DefaultCCARidge)},
	} {
		m := fit(t, tc.id, in, tc.p)
		tuIsIdentity(t, tc.id+" PᵀBP", tuGram(m.Basis, tc.b, 3), 1e-8)
	}
}
