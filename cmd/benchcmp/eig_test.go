package main

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestTopEig builds A = QΛQᵀ with known eigenvalues Λ (Q a random
// orthogonal matrix) and checks topEig's k largest: the values, AV = VΛ_k
// and VᵀV = I.
func TestTopEig(t *testing.T) {
	const n = 30
	rng := rand.New(rand.NewPCG(1, 1))
	g := mat.NewDense(n, n, nil)
	for i := range n {
		for j := range n {
			g.Set(i, j, rng.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(g)
	var q mat.Dense
	qr.QTo(&q)
	lambda := make([]float64, n)
	for i := range lambda {
		lambda[i] = float64(i*i) - 10 // ascending, some negative
	}
	var a0 mat.Dense
	a0.Mul(&q, mat.NewDiagDense(n, lambda))
	a0.Mul(&a0, q.T())
	a := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			a.SetSym(i, j, (a0.At(i, j)+a0.At(j, i))/2)
		}
	}
	for _, k := range []int{1, 5, n} {
		vals, vecs, err := topEig(context.Background(), a, k)
		if err != nil {
			t.Fatalf("k = %d: %v", k, err)
		}
		if r, c := vecs.Dims(); r != n || c != k || len(vals) != k {
			t.Fatalf("k = %d: got %d values and %d×%d vectors, want %d and %d×%d", k, len(vals), r, c, k, n, k)
		}
		for j, v := range vals {
			if want := lambda[n-1-j]; math.Abs(v-want) > 1e-10*float64(n*n) {
				t.Errorf("k = %d: eigenvalue %d: got %v, want %v", k, j, v, want)
			}
		}
		var av, vl, vtv mat.Dense
		av.Mul(a, vecs)
		vl.Mul(vecs, mat.NewDiagDense(k, vals))
		if !mat.EqualApprox(&av, &vl, 1e-9) {
			t.Errorf("k = %d: AV ≠ VΛ", k)
		}
		vtv.Mul(vecs.T(), vecs)
		if !mat.EqualApprox(&vtv, eye(k), 1e-12) {
			t.Errorf("k = %d: VᵀV ≠ I", k)
		}
	}
}

func TestTopEigErrors(t *testing.T) {
	a := mat.NewSymDense(3, []float64{2, 0, 0, 0, 1, 0, 0, 0, 3})
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name string
		ctx  context.Context
		k    int
		want string
	}{
		{"k = 0", context.Background(), 0, "outside 1…3"},
		{"k > n", context.Background(), 4, "outside 1…3"},
		{"canceled", canceled, 2, "canceled"},
	} {
		if _, _, err := topEig(tc.ctx, a, tc.k); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
}

// eye is the k×k identity.
func eye(k int) *mat.Dense {
	m := mat.NewDense(k, k, nil)
	for i := range k {
		m.Set(i, i, 1)
	}
	return m
}
