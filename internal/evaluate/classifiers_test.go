package evaluate

import (
	"context"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestMLkNNHandComputed: five training points on a line, k = 1, s = 1.
//
//	x:  0  1  2  10 11      label: 1 1 0 0 1
//
// Nearest other neighbour: 0→1, 1→0 (tie 0 and 2 at distance 1: lower
// index), 2→1, 10→11, 11→10. Neighbour label counts C: 1, 1, 1, 1, 0.
// With label: rows 0, 1, 4 have C = 1, 1, 0 → c1 = [1, 2]; without: rows
// 2, 3 have C = 1, 1 → c0 = [0, 2]. Prior (1 + 3)/(2 + 5) = 4/7.
// P(E_j|H1) = (1 + c1[j])/(2 + 3): [2/5, 3/5]; P(E_j|H0): [1/4, 3/4].
// A test point at 0.4 has neighbour 0 (label 1): C = 1 → posterior
// (4/7·3/5)/(4/7·3/5 + 3/7·3/4) = 0.64/1.2... = 12/35 / (12/35 + 9/28).
func TestMLkNNHandComputed(t *testing.T) {
	x := mat.NewDense(5, 1, []float64{0, 1, 2, 10, 11})
	y := mat.NewDense(5, 1, []float64{1, 1, 0, 0, 1})
	model, err := MLkNN{K: 1, S: 1}.Fit(context.Background(), x, y)
	if err != nil {
		t.Fatal(err)
	}
	pred, post, err := model.Predict(context.Background(), mat.NewDense(2, 1, []float64{0.4, 10.6}))
	if err != nil {
		t.Fatal(err)
	}
	in, out := 4.0/7*3/5, 3.0/7*3/4
	near(t, "posterior at 0.4 (C = 1)", post.At(0, 0), in/(in+out))
	// 10.6: nearest is 11 (label 1) → C = 1 again.
	near(t, "posterior at 10.6 (C = 1)", post.At(1, 0), in/(in+out))
	if pred.At(0, 0) != 1 {
		t.Errorf("prediction at 0.4: got %v, want 1 (posterior %.3f ≥ 0.5)", pred.At(0, 0), post.At(0, 0))
	}
	// A point whose neighbour lacks the label: C = 0.
	_, post, _ = model.Predict(context.Background(), mat.NewDense(1, 1, []float64{2.2}))
	in, out = 4.0/7*2/5, 3.0/7*1/4
	near(t, "posterior at 2.2 (C = 0)", post.At(0, 0), in/(in+out))
	if _, err := (MLkNN{K: 5}).Fit(context.Background(), x, y); err == nil {
		t.Error("k = N: got no error")
	}
}

func TestRidgeBR(t *testing.T) {
	// Outputs equal the closed form on centred data.
	x := mat.NewDense(4, 2, []float64{1, 2, 2, 1, 3, 5, 4, 4})
	y := mat.NewDense(4, 1, []float64{0, 0, 1, 1})
	model, err := RidgeBR{Lambda: 0.5}.Fit(x, y)
	if err != nil {
		t.Fatal(err)
	}
	_, scores := model.Predict(x)
	// Centred x: (−1.5, −1), (−0.5, −2), (0.5, 2), (1.5, 1); y − 0.5.
	xc := mat.NewDense(4, 2, []float64{-1.5, -1, -0.5, -2, 0.5, 2, 1.5, 1})
	yc := mat.NewDense(4, 1, []float64{-0.5, -0.5, 0.5, 0.5})
	var a, b, w, want mat.Dense
	a.Mul(xc.T(), xc)
	a.Set(0, 0, a.At(0, 0)+0.5)
	a.Set(1, 1, a.At(1, 1)+0.5)
	b.Mul(xc.T(), yc)
	if err := w.Solve(&a, &b); err != nil {
		t.Fatal(err)
	}
	want.Mul(xc, &w)
	for i := range 4 {
		near(t, "ridge output", scores.At(i, 0), want.At(i, 0)+0.5)
	}
}

func TestKNNVoteTies(t *testing.T) {
	// k = 2: one neighbour of class 2, one of class 0: the tie goes to 0.
	x := mat.NewDense(3, 1, []float64{0, 1, 5})
	y := mat.NewDense(3, 1, []float64{2, 0, 1})
	pred, err := KNNVote{K: 2}.Predict(context.Background(), x, y, mat.NewDense(1, 1, []float64{0.5}), []int{3})
	if err != nil {
		t.Fatal(err)
	}
	if pred.At(0, 0) != 0 {
		t.Errorf("got class %v, want 0 (lowest of the tied)", pred.At(0, 0))
	}
}

// TestMLkNNHalfPredictsLabel: four separated pairs with labels (1,0), (0,1),
// (1,1), (0,0) and k = 1 give c1 = c0 = [2, 2] and prior 1/2, so every
// posterior is exactly 1/2 — which the reference code predicts as a label
// (posterior ≥ 0.5).
func TestMLkNNHalfPredictsLabel(t *testing.T) {
	x := mat.NewDense(8, 1, []float64{0, 1, 10, 11, 20, 21, 30, 31})
	y := mat.NewDense(8, 1, []float64{1, 0, 0, 1, 1, 1, 0, 0})
	model, err := MLkNN{K: 1}.Fit(context.Background(), x, y)
	if err != nil {
		t.Fatal(err)
	}
	pred, post, _ := model.Predict(context.Background(), mat.NewDense(2, 1, []float64{5, 25}))
	for i := range 2 {
		near(t, "posterior", post.At(i, 0), 0.5)
		if pred.At(i, 0) != 1 {
			t.Errorf("row %d: posterior 0.5 gave %v, want 1", i, pred.At(i, 0))
		}
	}
}
