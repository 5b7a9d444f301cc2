package analysis

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// Kernel PCA and kernel MDDM (docs/METHODS.md, "Kernel methods").
//
// Both work with a feature map φ of the kernel, made explicit on the
// numerically non-zero spectrum of a kernel matrix, and then solve the
// linear method (pca, mddmp) on the mapped rows:
//
//   - the exact dual (N ≤ MaxNKernelExact, landmarks not given): the
//     centred kernel Kc = HKH, and centred mapped rows R with RRᵀ = Kc on
//     its numerically non-zero part (kmddm: the pivoted Cholesky factor;
//     kpca needs only Kc's leading eigenpairs);
//   - Nyström (m landmarks z_1…z_m): K_ZZ = VΣVᵀ on its r leading pairs,
//     φ(x) = Σ_r^{-1/2}V_rᵀk_Z(x), Φ = K_XZ·V_rΣ_r^{-1/2}; with every row
//     a landmark, ΦΦᵀ = K and the exact dual's results follow.
//
// A direction β of the linear method on the mapped rows is, in the dual,
// α = W·β (W = V_rΣ_r^{-1/2}; for the exact dual α = P·[U₁₁⁻¹β; 0]), and a
// row x projects to (k(x) − k̄)ᵀα, k̄ the column means of the training
// rows' kernel with the basis rows: Model.Basis holds α, Model.Means k̄
// and Model.Kernel the kernel and the basis rows.

// MaxNKernelExact is the most rows kpca and kmddm fit by the exact dual
// (the N×N kernel, 72 MB at N = 3 000, and its decomposition or pivoted
// Cholesky factor, growing as N³: some 5 s at N = 3 000 on two cores)
// when landmarks is not given; above it they take DefaultLandmarks
// Nyström landmarks.
const MaxNKernelExact = 3000

// MaxLandmarks is the most Nyström landmarks kpca and kmddm take: their
// m×m kernel is decomposed in full.
const MaxLandmarks = 4000

// maxKernelDegree is the largest degree of the poly kernel.
const maxKernelDegree = 10

// checkKernelParams checks the kernel parameters of kpca and kmddm that
// need no data.
func checkKernelParams(p Params) error {
	kind := p.Kernel
	if kind == "" {
		kind = KernelRBF
	}
	switch {
	case !slices.Contains([]string{KernelRBF, KernelPoly, KernelLinear}, kind):
		return invalid(ParamKernel, "kernel must be %s, %s or %s, not %q", KernelRBF, KernelPoly, KernelLinear, p.Kernel)
	case kind == KernelLinear && p.Gamma != nil:
		return invalid(ParamGamma, "gamma is the rbf and poly kernels' γ; the linear kernel takes none")
	case kind != KernelPoly && p.Degree != 0:
		return invalid(ParamDegree, "degree is the poly kernel's; the %s kernel takes none", kind)
	case kind != KernelPoly && p.Coef0 != nil:
		return invalid(ParamCoef0, "coef0 is the poly kernel's; the %s kernel takes none", kind)
	case p.Degree > maxKernelDegree:
		return invalid(ParamDegree, "degree may be at most %d, not %d", maxKernelDegree, p.Degree)
	case p.Coef0 != nil && *p.Coef0 < 0:
		return invalid(ParamCoef0, "coef0 must be 0 or more (a negative c₀ can make the kernel indefinite), not %v", *p.Coef0)
	case p.Landmarks > MaxLandmarks:
		return unservable(ParamLandmarks, MaxLandmarks, "landmarks may be at most %d (their kernel is decomposed in full), not %d", MaxLandmarks, p.Landmarks)
	case p.LandmarkSampling != "" && p.LandmarkSampling != SamplingKMeansPP && p.LandmarkSampling != SamplingUniform:
		return invalid(ParamLandmarkSampling, "landmark_sampling must be %s or %s, not %q", SamplingKMeansPP, SamplingUniform, p.LandmarkSampling)
	}
	return nil
}

// kernelLandmarks is how many Nyström landmarks a fit of n rows takes
// (0: the exact dual), after checking landmarks against n.
func kernelLandmarks(p Params, n int) (int, error) {
	switch {
	case p.Landmarks > n:
		return 0, unservable(ParamLandmarks, n, "landmarks = %d exceeds the %d rows; give at most %d", p.Landmarks, n, n)
	case p.Landmarks > 0:
		return p.Landmarks, nil
	case n > MaxNKernelExact:
		return min(DefaultLandmarks, n), nil
	}
	return 0, nil
}

// kernelOf is the kernel p asks for, defaults filled in: γ of rbf by the
// scale rule 1/(D·mean feature variance) as kcplst's (1/D when every
// feature is constant), γ of poly 1/D and its degree and c₀ as
// scikit-learn's KernelPCA. notes say which defaults were taken.
func kernelOf(p Params, x *mat.Dense) (Kernel, []string) {
	n, d := x.Dims()
	k := Kernel{Kind: p.Kernel}
	if k.Kind == "" {
		k.Kind = KernelRBF
	}
	var notes []string
	if k.Kind == KernelLinear {
		return k, nil
	}
	if p.Gamma != nil {
		k.Gamma = *p.Gamma
	} else if k.Kind == KernelRBF {
		mean := columnMeans(x)
		total := 0.0
		for i := range n {
			for j, v := range x.RawRowView(i) {
				e := v - mean[j]
				total += e * e
			}
		}
		k.Gamma = scaleGamma(n, d, total)
		notes = append(notes, fmt.Sprintf("gamma = %.6g, by the scale rule 1/(D·mean feature variance)", k.Gamma))
	} else {
		k.Gamma = 1 / float64(d)
		notes = append(notes, fmt.Sprintf("gamma = %.6g = 1/D", k.Gamma))
	}
	if k.Kind == KernelPoly {
		k.Degree = cmp.Or(p.Degree, DefaultDegree)
		k.Coef0 = DefaultCoef0
		if p.Coef0 != nil {
			k.Coef0 = *p.Coef0
		}
	}
	return k, notes
}

// withKernel records the kernel and the landmark choice in the model's
// parameters.
func withKernel(p Params, k Kernel, m int) Params {
	p.Kernel = k.Kind
	if k.Kind != KernelLinear {
		p.Gamma = Float(k.Gamma)
	}
	if k.Kind == KernelPoly {
		p.Degree, p.Coef0 = k.Degree, Float(k.Coef0)
	}
	if m > 0 {
		p.Landmarks = m
		if p.LandmarkSampling == "" {
			p.LandmarkSampling = SamplingKMeansPP
		}
		if p.LandmarkSeed == nil {
			seed := uint64(DefaultLandmarkSeed)
			p.LandmarkSeed = &seed
		}
	}
	return p
}

// fitKPCA is kernel PCA (Schölkopf, Smola & Müller 1998) as
// scikit-learn's KernelPCA computes it: the eigenpairs (λ, u) of the
// centred kernel Kc = HKH, dual coefficients α = u/√λ, training rows
// projected to √λ·u and a new row x to (k(x) − k̄)ᵀα. Its eigenvalues are
// those of Kc. With landmarks (or above MaxNKernelExact rows), PCA of the
// Nyström-mapped rows.
func fitKPCA(ctx context.Context, in Input, p Params, st stage) (*Model, error) {
	return fitKernel(ctx, "kpca", in, p, st)
}

// fitKMDDM is kernel MDDM, the dual of MDDM with orthonormal directions
// (seed 000, eq. 3–4, and its remark that the dual form and the kernel
// trick give a non-linear MDDM): with P = Φᵀα, maximise tr(αᵀKHLHKα)
// subject to αᵀKα = I, the generalised problem KHLHKα = λKα, solved on
// the kernel's non-zero spectrum as mddmp of the mapped rows (L the label
// kernel, as mddmp forms it: YYᵀ by default). With landmarks (or above
// MaxNKernelExact rows), mddmp of the Nyström-mapped rows.
func fitKMDDM(ctx context.Context, in Input, p Params, st stage) (*Model, error) {
	return fitKernel(ctx, "kmddm", in, p, st)
}

// fitKernel fits kpca or kmddm (id): the exact dual or Nyström.
func fitKernel(ctx context.Context, id string, in Input, p Params, st stage) (*Model, error) {
	x := in.X // Fit has made sparse features dense (densify)
	n, _ := x.Dims()
	k, notes := kernelOf(p, x)
	m, err := kernelLandmarks(p, n)
	if err != nil {
		return nil, err
	}
	if m == 0 && (p.LandmarkSampling != "" || p.LandmarkSeed != nil) {
		name := ParamLandmarkSampling
		if p.LandmarkSampling == "" {
			name = ParamLandmarkSeed
		}
		return nil, invalid(name, "%s chooses the Nyström landmarks, and these %d rows are fitted by the exact dual, without landmarks; "+
			"give landmarks too, or leave %s out", name, n, name)
	}
	p = withKernel(p, k, m)
	var model *Model
	if m == 0 {
		model, err = fitKernelExact(ctx, id, in, k, p, st)
	} else {
		model, err = fitNystrom(ctx, id, in, k, m, p, st)
	}
	if err != nil {
		return nil, err
	}
	model.Notes = append(notes, model.Notes...)
	return model, nil
}

// subParams are the parameters the linear method on the mapped rows
// takes from p.
func subParams(id string, p Params) Params {
	q := Params{D: p.D, Thr: p.Thr, MaxDim: p.MaxDim}
	if id == "kmddm" {
		q.LabelKernel = p.LabelKernel
	}
	return q
}

// fitKernelExact fits id by the exact dual: the N×N centred kernel Kc,
// its eigenpairs that p needs for kpca, its pivoted Cholesky factor for
// kmddm.
func fitKernelExact(ctx context.Context, id string, in Input, k Kernel, p Params, st stage) (*Model, error) {
	x := in.X
	n, _ := x.Dims()
	st.sub(0, 0.2, "kernel matrix").at(0)
	kx, err := k.Rows(ctx, x, x)
	if err != nil {
		return nil, err
	}
	before := trace(mat.NewSymDense(n, kx.RawMatrix().Data))
	kbar := centreKernel(kx)
	if flatKernel(before, trace(mat.NewSymDense(n, kx.RawMatrix().Data))) {
		return nil, noDirection(id)
	}
	phase := "eigen-decomposition"
	if id == "kmddm" {
		phase = "pivoted Cholesky factor"
	}
	if err := st.sub(0.2, 0.9, phase).checkpoint(ctx, 0); err != nil {
		return nil, err
	}
	kc := mat.NewSymDense(n, kx.RawMatrix().Data)
	basis := &KernelBasis{Kernel: k, Rows: mat.DenseCopyOf(x), Index: seq(n)}
	what := "rank of HKH"
	if id == "kpca" {
		e, err := symEigFor(ctx, kc, p, true)
		if err != nil {
			return nil, err
		}
		kx, kc = nil, nil
		rank := min(rankOf(e.values), n-1)
		_, cols := e.vectors.Dims()
		r := min(cols, rank)
		if r == 0 {
			return nil, noDirection(id)
		}
		alpha := mat.NewDense(n, r, nil)
		for j := range r {
			s := 1 / math.Sqrt(e.values[j])
			for i := range n {
				alpha.Set(i, j, e.vectors.At(i, j)*s)
			}
		}
		centreColumns(alpha)
		fixSigns(alpha)
		total := e.positiveSum()
		d, err := chooseDimOf(id, e.values, total, e.partial(), rank, what, p)
		if err != nil {
			return nil, err
		}
		proj := mat.NewDense(n, d, nil) // Kc·α = λ·α
		for j := range d {
			for i := range n {
				proj.Set(i, j, e.values[j]*alpha.At(i, j))
			}
		}
		return &Model{Method: id, Space: FeatureSpace, Params: p, Basis: alpha, Means: kbar,
			Eigenvalues: e.values, Order: max(e.order, len(e.values)), Total: total,
			Rank: rank, RankOf: what, RankAtLeast: rankAtLeast(e, rank), Dim: d, Energy: energyOf(e.values, d, total),
			Residuals: e.residuals, Projected: proj, Kernel: basis,
			Notes: []string{"exact dual: the " + fmt.Sprint(n) + " × " + fmt.Sprint(n) + " centred kernel matrix, kernel " + k.String()}}, nil
	}
	// kmddm: Kc = RRᵀ by pivoted Cholesky, PᵀKcP = UᵀU (U upper, rank r,
	// in Kc's own buffer), R = PU_rᵀ; the mapped rows are R. A direction
	// β of mddmp on them is α = P·[U₁₁⁻¹β; 0], whose Kcα = Rβ and
	// αᵀKcα = βᵀβ. A fraction of the eigen-decomposition's time (1 s
	// against 6 at N = 2 000) and no N×N eigenvectors.
	kr := kc.RawSymmetric()
	top := 0.0
	for i := range n {
		top = max(top, kr.Data[i*kr.Stride+i])
	}
	if top <= 0 {
		return nil, noDirection(id)
	}
	piv := make([]int, n)
	u, r, _ := lapack64.Pstrf(kr, piv, rankTol*top, make([]float64, 2*n))
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if r = min(r, n-1); r == 0 { // Kc1 = 0
		return nil, noDirection(id)
	}
	phi := mat.NewDense(n, r, nil) // R[piv[k], j] = U[j, k]
	for j := range r {
		row := u.Data[j*u.Stride : j*u.Stride+n]
		for k := j; k < n; k++ {
			phi.Set(piv[k], j, row[k])
		}
	}
	u11 := blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: r, Stride: u.Stride, Data: u.Data}
	return finishKernel(ctx, id, in, phi, func(beta *mat.Dense) *mat.Dense {
		_, c := beta.Dims()
		b := mat.DenseCopyOf(beta)
		blas64.Trsm(blas.Left, blas.NoTrans, 1, u11, b.RawMatrix()) // U₁₁⁻¹β
		alpha := mat.NewDense(n, c, nil)
		for k := range r {
			alpha.SetRow(piv[k], b.RawRowView(k))
		}
		centreColumns(alpha) // Kc·Hα = Kcα, and 1ᵀα = 0 makes (k(x) − k̄)ᵀα HKH's centring
		return alpha
	}, kbar, basis, p, "exact dual: the "+fmt.Sprint(n)+" × "+fmt.Sprint(n)+" centred kernel matrix, kernel "+k.String(), st.sub(0.9, 1, "dependence"))
}

// fitNystrom fits id on the Nyström map of m landmarks.
func fitNystrom(ctx context.Context, id string, in Input, k Kernel, m int, p Params, st stage) (*Model, error) {
	x := in.X
	n, _ := x.Dims()
	idx, err := chooseLandmarks(ctx, x, k, m, p.LandmarkSampling, *p.LandmarkSeed, st.sub(0, 0.2, "landmarks"))
	if err != nil {
		return nil, err
	}
	z := rowsAt(x, idx)
	kzz, err := k.Rows(ctx, z, z)
	if err != nil {
		return nil, err
	}
	if err := st.sub(0.2, 0.3, "landmark kernel").checkpoint(ctx, 0); err != nil {
		return nil, err
	}
	e, err := symEig(ctx, mat.NewSymDense(m, kzz.RawMatrix().Data))
	if err != nil {
		return nil, err
	}
	kzz = nil
	r := rankOf(e.values)
	if r == 0 {
		return nil, noDirection(id)
	}
	w := mat.DenseCopyOf(e.vectors.Slice(0, m, 0, r)) // W = V_rΣ_r^{-1/2}
	e.vectors = nil
	for j := range r {
		s := 1 / math.Sqrt(e.values[j])
		for i := range m {
			w.Set(i, j, w.At(i, j)*s)
		}
	}
	phi := mat.NewDense(n, r, nil)
	kbar := make([]float64, m)
	sp := st.sub(0.3, 0.6, "kernel rows")
	err = k.blocks(ctx, x, z, func(i0 int, kb *mat.Dense) error {
		rows, _ := kb.Dims()
		for i := range rows {
			axpy(1, kb.RawRowView(i), kbar)
		}
		phi.Slice(i0, i0+rows, 0, r).(*mat.Dense).Mul(kb, w)
		sp.at(float64(i0+rows) / float64(n))
		return nil
	})
	if err != nil {
		return nil, err
	}
	for j := range kbar {
		kbar[j] /= float64(n)
	}
	// The mapped rows' spread: Σ‖φᵢ‖² against Σ‖φᵢ − φ̄‖².
	mean := columnMeans(phi)
	all, spread := 0.0, 0.0
	for i := range n {
		for j, v := range phi.RawRowView(i) {
			all += v * v
			spread += (v - mean[j]) * (v - mean[j])
		}
	}
	if flatKernel(all, spread) {
		return nil, noDirection(id)
	}
	basis := &KernelBasis{Kernel: k, Rows: z, Index: idx}
	how := "every row a landmark"
	if m < n {
		how = fmt.Sprintf("%d landmarks chosen by %s, seed %d", m, p.LandmarkSampling, *p.LandmarkSeed)
	}
	note := fmt.Sprintf("Nyström: %s, kernel %s; the mapped rows have %d dimensions (the landmarks' kernel's rank)", how, k.String(), r)
	return finishKernel(ctx, id, in, phi, func(beta *mat.Dense) *mat.Dense {
		var alpha mat.Dense
		alpha.Mul(w, beta)
		return &alpha
	}, kbar, basis, p, note, st.sub(0.6, 1, "directions"))
}

// finishKernel solves the linear method of id on the mapped rows phi
// (pca for kpca, mddmp with the label kernel for kmddm) and turns its
// directions β into dual coefficients α = dual(β), signs fixed on α.
func finishKernel(ctx context.Context, id string, in Input, phi *mat.Dense, dual func(beta *mat.Dense) *mat.Dense,
	kbar []float64, basis *KernelBasis, p Params, note string, st stage) (*Model, error) {
	sub := Input{X: phi}
	fit := fitPCA
	if id == "kmddm" {
		sub.Y, sub.Labels = in.Y, in.Labels
		fit = fitMDDMp
	}
	sm, err := fit(ctx, sub, subParams(id, p), st)
	if err != nil {
		return nil, err
	}
	alpha := dual(sm.Basis)
	flips := flipColumns(alpha)
	proj := sm.Projected
	_, d := proj.Dims()
	for j, f := range flips[:d] {
		if f {
			for i := range proj.RawMatrix().Rows {
				proj.Set(i, j, -proj.At(i, j))
			}
		}
	}
	what := "rank of HKH"
	if id == "kmddm" {
		what = "rank of KHLHK on the span of K"
		p.LabelKernel = sm.Params.LabelKernel
	}
	return &Model{Method: id, Space: FeatureSpace, Params: p, Basis: alpha, Means: kbar,
		Eigenvalues: sm.Eigenvalues, Order: sm.Order, Total: sm.Total, Rank: sm.Rank, RankOf: what, RankAtLeast: sm.RankAtLeast,
		Residuals: sm.Residuals, Dim: sm.Dim, Energy: sm.Energy, Projected: proj, Kernel: basis,
		Notes: append([]string{note}, sm.Notes...)}, nil
}

// flatKernel reports whether the centred kernel, of trace centred, is 0
// to rounding next to the kernel, of trace whole: the rows are all alike
// in the kernel's feature space (what is left of centring is the
// rounding of k(x, x′) − k̄ − k̄′ + mean k̄).
func flatKernel(whole, centred float64) bool {
	return !(centred > rankTol*whole)
}

// noDirection is the refusal of rows that are all alike in the kernel's
// feature space.
func noDirection(id string) error {
	return unservable("", 0, "%s gives no direction on these data: the rows are all alike in the kernel's feature space (the centred kernel matrix is 0)", id)
}

// centreKernel turns the symmetric kernel k (N×N) into HKH in place and
// returns its column means k̄: Kc_ij = K_ij − k̄_i − k̄_j + mean(k̄).
func centreKernel(k *mat.Dense) []float64 {
	n, _ := k.Dims()
	kbar := columnMeans(k)
	g := 0.0
	for _, v := range kbar {
		g += v
	}
	g /= float64(n)
	for i := range n {
		row := k.RawRowView(i)
		for j := range row {
			row[j] += g - kbar[i] - kbar[j]
		}
	}
	return kbar
}

// centreColumns removes every column's mean.
func centreColumns(a *mat.Dense) {
	mean := columnMeans(a)
	r, _ := a.Dims()
	for i := range r {
		axpy(-1, mean, a.RawRowView(i))
	}
}

// kernelDimBound is the largest d kpca and kmddm can give on data of
// shape s: the rank of the centred kernel (at most N − 1; with m
// landmarks at most m; with the linear kernel at most D), and for kmddm
// at most the label kernel's columns, as mddmp's.
func kernelDimBound(id string, p Params, s Shape) int {
	b := s.N - 1
	if m, err := kernelLandmarks(p, s.N); err == nil && m > 0 {
		b = min(b, m) // Nyström: the rank of the m×m landmark kernel at most
	}
	if p.Kernel == KernelLinear {
		b = min(b, s.D)
	}
	if id == "kmddm" {
		switch p.LabelKernel {
		case KernelQuadratic:
			b = min(b, s.Q*(s.Q+1)/2)
		case KernelRBF:
		default:
			b = min(b, s.Q)
		}
	}
	return max(b, 0)
}

// kernelVectors bounds the directions a fit keeps of a problem of order
// n: every one for thr and MaxDimAll, else max(d, MaxDim).
func kernelVectors(p Params, n float64) float64 {
	if p.MaxDim == MaxDimAll || p.D == 0 && p.MaxDim == 0 || p.Thr > 0 {
		return n
	}
	return min(n, float64(max(p.D, p.MaxDim)))
}

// memKernelRows follows Kernel.blocks with b basis rows: the rbf
// kernel's centred copy of them, a block of rows and its kernel.
func memKernelRows(l *memoryLedger, p Params, b, d float64) {
	u := kernelBlock * (d + b + 1)
	if p.Kernel == "" || p.Kernel == KernelRBF {
		u += b*d + 2*b
	}
	l.burst(u)
}

// memKPCA: the exact dual's copy of the rows (N×D), its N×N kernel and
// the eigen-decomposition (every pair, at worst), α and the projected
// rows; or Nyström's (the landmarks, their m×m kernel and its
// decomposition, the N×m mapped rows and pca on them).
func memKPCA(p Params, s Shape) float64 {
	return memKernel("kpca", p, s)
}

// memKMDDM: the exact dual's copy of the rows, its N×N kernel factored in
// place by pivoted Cholesky, the mapped rows R (N×r) and mddmp's fit on
// them, α; or Nyström's.
func memKMDDM(p Params, s Shape) float64 {
	return memKernel("kmddm", p, s)
}

func memKernel(id string, p Params, s Shape) float64 {
	l := newLedger()
	n, d := float64(s.N), float64(s.D)
	sub := subParams(id, p)
	m, err := kernelLandmarks(p, s.N)
	if err != nil {
		m = s.N
	}
	if m == 0 {
		l.hold(n*d + n) // the basis rows, k̄
		l.hold(n * n)
		memKernelRows(l, p, n, d)
		r := max(1, float64(kernelDimBound(id, p, s)))
		if id == "kpca" {
			l.eig(n)
			l.drop(n * n) // the kernel
			k := kernelVectors(p, r)
			l.hold(2 * n * k) // α, the projected rows
			return l.peak
		}
		l.hold(3 * n) // the pivots and Pstrf's work
		r = n - 1
		l.hold(n * r) // the mapped rows R; the pivoted Cholesky factor stays in the kernel's buffer
		l.hold(memMDDMp(sub, Shape{N: s.N, D: int(r), Q: s.Q, LabelOnes: s.LabelOnes, LabelSets: s.LabelSets}))
		l.hold(n*r + r*r) // α and U₁₁⁻¹β
		return l.peak
	}
	mf := float64(m)
	l.hold(mf * d)       // the landmarks
	l.burst(4*n + 256*d) // k-means++ distances and one kernel column
	l.hold(mf * mf)
	memKernelRows(l, p, mf, d)
	l.eig(mf)
	l.drop(mf * mf)
	l.hold(mf*mf + mf) // W, k̄
	l.drop(mf * mf)    // the eigenvectors
	l.hold(n * mf)     // Φ
	memKernelRows(l, p, mf, d)
	sh := Shape{N: s.N, D: m, Q: s.Q, LabelOnes: s.LabelOnes, LabelSets: s.LabelSets}
	if id == "kpca" {
		l.hold(memPCA(sub, sh))
	} else {
		l.hold(memMDDMp(sub, sh))
	}
	l.hold(mf * mf) // α
	return l.peak
}

// KernelBasisRows is how many basis rows a model of method id fitted on
// data of shape s with p keeps, each of D features (KernelBasis.Rows),
// with as many rows of dual coefficients: N for the exact dual of kpca and
// kmddm, the landmarks for Nyström; 0 for the other methods.
func KernelBasisRows(id string, p Params, s Shape) int {
	if id != "kpca" && id != "kmddm" {
		return 0
	}
	m, err := kernelLandmarks(p, s.N)
	if err != nil || m == 0 {
		return s.N
	}
	return m
}
