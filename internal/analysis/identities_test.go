package analysis

import (
	"testing"

	"gonum.org/v1/gonum/mat"
)

// Identities between methods: each is a fact of the algebra, so
// two different code paths must agree.

func TestMDDMfBetaZeroIsMDDMp(t *testing.T) {
	in := tuMultiLabel(21, 120, 9, 5)
	f := fit(t, "mddmf", in, Params{D: 4, Beta: Float(0)})
	p := fit(t, "mddmp", in, Params{D: 4})
	tuCloseValues(t, "mddmf β=0 vs mddmp", f.Eigenvalues, p.Eigenvalues, 4, 1e-10)
	tuSameColumns(t, "mddmf β=0 vs mddmp", f.Basis, p.Basis, 4, 1e-8)
}

func TestMVMDEnds(t *testing.T) {
	in := tuMultiLabel(22, 120, 9, 5)
	pca := fit(t, "pca", in, Params{D: 6})
	zero := fit(t, "mvmd", in, Params{D: 6, Beta: Float(0)})
	tuCloseValues(t, "mvmd β=0 vs pca", zero.Eigenvalues, pca.Eigenvalues, 6, 1e-10)
	tuSameSubspace(t, "mvmd β=0 vs pca", zero.Basis, pca.Basis, 6, 1e-10)
	mddmp := fit(t, "mddmp", in, Params{D: 4})
	one := fit(t, "mvmd", in, Params{D: 4, Beta: Float(1)})
	four := make([]float64, len(mddmp.Eigenvalues))
	for i, v := range mddmp.Eigenvalues {
		four[i] = 4 * v // ±1 coding: XcᵀYc doubles
	}
	tuCloseValues(t, "mvmd β=1 vs 4·mddmp", one.Eigenvalues, four, 4, 1e-10)
	tuSameSubspace(t, "mvmd β=1 vs mddmp", one.Basis, mddmp.Basis, 4, 1e-10)
}

// SDeM on class variables is MDDM on their one-hot matrix.
func TestSDeMIsMDDMpOnOneHot(t *testing.T) {
	in := tuMultiDim(23, 150, 8, []int{3, 4, 2})
	sdem := fit(t, "sdem", in, Params{D: 5})
	hot := Input{X: in.X, Y: tuLabelDense(in)}
	mddmp := fit(t, "mddmp", hot, Params{D: 5})
	tuCloseValues(t, "sdem vs mddmp on one-hot", sdem.Eigenvalues, mddmp.Eigenvalues, 5, 1e-10)
	tuSameColumns(t, "sdem vs mddmp on one-hot", sdem.Basis, mddmp.Basis, 5, 1e-8)
}

// MDS of Euclidean distances is PCA's scores.
func TestMDSIsPCAScores(t *testing.T) {
	in := tuMultiLabel(24, 90, 7, 3)
	mds := fit(t, "mds", in, Params{D: 4})
	pca := fit(t, "pca", in, Params{D: 4})
	tuSameColumns(t, "mds vs pca scores", mds.Projected, pca.Projected, 4, 1e-8)
}

// On 0/1 labels the squared Euclidean distance is the Hamming distance.
func TestEuclidYIsHammingOnBinary(t *testing.T) {
	in := tuMultiLabel(25, 80, 6, 4)
	h := fit(t, "ge-hamming", in, Params{D: 3})
	e := fit(t, "ge-euclid-y", in, Params{D: 3})
	tuCloseValues(t, "ge-euclid-y vs ge-hamming", e.Eigenvalues, h.Eigenvalues, 3, 1e-12)
	tuSameColumns(t, "ge-euclid-y vs ge-hamming", e.Basis, h.Basis, 3, 1e-10)
}

// Theorem 1 of seed 002: with mutually independent labels (NMI = I) the
// generalised Hamming distance is the Hamming distance. Two labels laid out
// as the four combinations in equal numbers are exactly independent.
func TestGeneralizedHammingWithIndependentLabels(t *testing.T) {
	in := tuMultiLabel(26, 80, 5, 2)
	for i := range 80 {
		in.Y.SetRow(i, []float64{float64(i % 2), float64((i / 2) % 2)})
	}
	nmi, _ := LabelNMI(in.Y)
	if nmi.At(0, 1) > 1e-12 {
		t.Fatalf("the labels are not independent: NMI %v", nmi.At(0, 1))
	}
	h := fit(t, "ge-hamming", in, Params{D: 3})
	g := fit(t, "ge-gh", in, Params{D: 3})
	tuCloseValues(t, "ge-gh vs ge-hamming", g.Eigenvalues, h.Eigenvalues, 3, 1e-10)
	tuSameColumns(t, "ge-gh vs ge-hamming", g.Basis, h.Basis, 3, 1e-8)
}

// The same data in another row order give the same reduction.
func TestRowOrderDoesNotMatter(t *testing.T) {
	in := tuMultiLabel(27, 100, 6, 4)
	n, _ := in.X.Dims()
	perm := make([]int, n)
	for i := range perm {
		perm[i] = (i*37 + 11) % n
	}
	px, py := mat.NewDense(n, 6, nil), mat.NewDense(n, 4, nil)
	for i, j := range perm {
		px.SetRow(i, in.X.RawRowView(j))
		py.SetRow(i, in.Y.RawRowView(j))
	}
	for _, id := range []string{"pca", "mddmp", "mvmd", "cca", "ge-gh", "mlda"} {
		a := fit(t, id, in, Params{D: 2})
		b := fit(t, id, Input{X: px, Y: py}, Params{D: 2})
		tuCloseValues(t, id+" permuted", b.Eigenvalues, a.Eigenvalues, 2, 1e-9)
		tuSameColumns(t, id+" permuted", b.Basis, a.Basis, 2, 1e-7)
	}
}
