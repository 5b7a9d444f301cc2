package analysis

import (
	"cmp"
	"slices"
)

// Shape describes data without the data: what Check needs.
type Shape struct {
	N, D, Q int
	// Classes holds K_j for multi-dimensional data, nil for multi-label.
	Classes   []int
	LabelSets int // G, the number of distinct label sets; 0: unknown (assume min(N, 2^q))
	// LabelOnes is Σ_i |y_i|, the ones of the multi-label Y; 0: unknown
	// (EstimateMemory assumes N·q).
	LabelOnes int
	// NNZ is the number of stored entries of the features when they are
	// given sparse (Input.Sparse); 0: dense. The sparse statistics hold no
	// per-worker Gram, but a column index of 12 bytes an entry; lpp and
	// kcplst add a dense copy of X (N·D).
	NNZ int64
	// LabelsSparse says the labels are given in CSR form (Input.Labels,
	// LabelOnes of them); the fits read them the same either way, but an
	// evaluation that keeps them sparse holds no N×q matrix
	// (evaluate.EstimateMemory).
	LabelsSparse bool
}

// Check validates a fit before any data are read: the method, its
// parameters (those it takes, d or thr, every range), the kind of labels,
// the rows a pairwise method accepts, and d against the largest the method
// can give on data of this shape (the rank may still be lower: Fit says so
// then, with the largest d possible). Refusals are *Error.
func Check(id string, p Params, s Shape) error {
	m, ok := Lookup(id)
	if !ok {
		return invalid("method", "unknown method %q", id)
	}
	if err := p.checkCommon(m); err != nil {
		return err
	}
	if err := checkRanges(m, p); err != nil {
		return err
	}
	if err := m.checkKind(s.Classes != nil); err != nil {
		return err
	}
	switch {
	case s.N < 2:
		return unservable("", 0, "a reduction needs at least 2 rows, not %d", s.N)
	case m.MaxN > 0 && s.N > m.MaxN:
		return unservable("method", m.MaxN, "%s accepts at most %d rows because %s; these data have %d", m.ID, m.MaxN, m.MaxNWhy, s.N)
	case m.ID == "mds" && p.SMACOF() && s.N > MaxNSMACOF:
		return smacofRows(p, s.N)
	case m.ID == "lpp" && cmp.Or(p.K, DefaultK) >= s.N:
		k := cmp.Or(p.K, DefaultK)
		return unservable(ParamK, s.N-1, "k = %d neighbours needs more than %d rows; with %d rows k may be at most %d", k, k, s.N, s.N-1)
	}
	if m.ID == "mddmp" || m.ID == "kmddm" {
		if err := checkLabelKernel(p.LabelKernel, s.Q, s.LabelSets); err != nil {
			return err
		}
	}
	if slices.Contains(m.Takes, ParamLandmarks) {
		if _, err := kernelLandmarks(p, s.N); err != nil {
			return err
		}
	}
	if bound := dimBound(m, p, s); p.D > bound {
		return unservable(ParamD, bound, "d = %d exceeds what %s can give on data of this shape: at most %d", p.D, m.ID, bound)
	}
	return nil
}

// maxQuadraticLabels is the most labels mddmp's quadratic label kernel
// serves: it builds q(q+1)/2 label columns (20 100 at q = 200), and XcᵀΦ
// is D×q(q+1)/2 (1.6 GB at D = 10 000), its SVD D·(q(q+1)/2)² flops.
const maxQuadraticLabels = 200

// checkLabelKernel refuses a label kernel the data are too large for: the
// quadratic kernel above maxQuadraticLabels labels, the rbf kernel above
// maxLabelsets distinct label sets (sets 0: not known yet; Fit counts them).
func checkLabelKernel(kernel string, q, sets int) error {
	switch {
	case kernel == KernelQuadratic && q > maxQuadraticLabels:
		return unservable(ParamLabelKernel, 0, "the quadratic label kernel builds q(q+1)/2 label columns, %d for these %d labels; "+
			"it serves at most %d labels (%d columns). Use the linear kernel, or fewer labels",
			q*(q+1)/2, q, maxQuadraticLabels, maxQuadraticLabels*(maxQuadraticLabels+1)/2)
	case kernel == KernelRBF && sets > maxLabelsets:
		return unservable(ParamLabelKernel, 0, "the rbf label kernel is computed between the distinct label sets, "+
			"and these data have %d; it serves at most %d. Use the linear or quadratic kernel, or fewer labels", sets, maxLabelsets)
	}
	return nil
}

// checkRanges checks every parameter's range that needs no data.
func checkRanges(m Method, p Params) error {
	if p.Beta != nil {
		hi, open := 1.0, m.ID == "mddmf"
		if open && *p.Beta == 1 {
			return invalid(ParamBeta, "beta = 1 makes the right-hand matrix XcᵀXc, which is singular whenever features are collinear "+
				"or outnumber the rows; mddmf takes beta in [0, 1)")
		}
		if _, err := p.beta(hi, open); err != nil {
			return err
		}
	}
	for _, f := range []struct {
		name string
		v    *float64
	}{{ParamGamma, p.Gamma}, {ParamLambda, p.Lambda}} {
		if _, err := positive(f.name, f.v, 1); err != nil {
			return err
		}
	}
	if _, err := nonNegative(ParamRidge, p.Ridge, 0); err != nil {
		return err
	}
	if slices.Contains(m.Takes, ParamKernel) {
		if err := checkKernelParams(p); err != nil {
			return err
		}
	}
	if m.ID == "mddmp" || m.ID == "kmddm" {
		k := p.LabelKernel
		if k != "" && !slices.Contains([]string{KernelLinear, KernelQuadratic, KernelRBF}, k) {
			return invalid(ParamLabelKernel, "label_kernel must be %s, %s or %s, not %q", KernelLinear, KernelQuadratic, KernelRBF, k)
		}
		if m.ID == "mddmp" && p.Gamma != nil && k != KernelRBF {
			return invalid(ParamGamma, "gamma is the width of the rbf label kernel; the %s kernel takes none", cmp.Or(k, KernelLinear))
		}
	}
	if k := p.Normalize; k != "" && k != NormalizeUnit && k != NormalizeB {
		return invalid(ParamNormalize, "normalize must be %s (unit-length directions) or %s (B-orthonormal directions, PᵀBP = I), not %q",
			NormalizeUnit, NormalizeB, k)
	}
	if err := checkLSBase(p); err != nil {
		return err
	}
	if m.ID == "mds" {
		if err := checkMDS(p); err != nil {
			return err
		}
	}
	if p.K > maxLPPK {
		return invalid(ParamK, "k may be at most %d (the graph keeps N·k edges); %d is too many", maxLPPK, p.K)
	}
	return nil
}

// dimBound is the largest d a method can give on data of shape s: its
// matrix's rank can be no larger.
func dimBound(m Method, p Params, s Shape) int {
	rows := s.N - 1 // centring removes one dimension
	labels := s.Q
	sumK := 0
	for _, k := range s.Classes {
		sumK += k
	}
	if s.Classes != nil {
		labels = sumK // one-hot columns
	}
	switch m.ID {
	case "mddmp":
		switch p.LabelKernel {
		case KernelQuadratic:
			return min(s.D, s.Q*(s.Q+1)/2, rows)
		case KernelRBF:
			return min(s.D, rows)
		}
		return min(s.D, s.Q, rows)
	case "mddmf", "cca":
		return min(s.D, labels, rows)
	case "mvmd":
		if p.Beta != nil && *p.Beta == 1 {
			return min(s.D, s.Q, rows)
		}
		return min(s.D, rows)
	case "sdem":
		return min(s.D, sumK-len(s.Classes), rows)
	case "lda":
		best := 1
		for _, k := range s.Classes {
			best = max(best, k-1)
		}
		return min(s.D, best)
	case "mlda":
		return min(s.D, s.Q-1)
	case "mds":
		return min(s.D, rows, mdsMaxDims)
	case "kpca", "kmddm":
		return kernelDimBound(m.ID, p, s)
	case "plst", "occa", "kcplst":
		return s.Q
	case "cplst", "rembrandt", "leml":
		return min(s.Q, s.D)
	case "mlcssp":
		return s.Q
	case "faie":
		return min(s.Q+s.D, s.N)
	}
	return min(s.D, rows)
}

// ModelColumns is the most directions a model of method id fitted on
// data of shape s with parameters p holds (its Basis's columns): the k
// pairs a route that iterates for them computes — the matrix-free routes
// of pca and mddmp, plst's label-Gram operator — when s takes it, else
// MaxDim (a whole decomposition keeps every direction, for other d from
// the same fit). It is 0 for an unknown method.
func ModelColumns(id string, p Params, s Shape) int {
	most := MaxDim(id, p, s)
	k, ok := 0, false
	switch id {
	case "pca":
		k, ok = shapeFree(p, s)
	case "mddmp":
		if s.NNZ > 0 && (p.LabelKernel == "" || p.LabelKernel == KernelLinear) {
			k, ok = mddmpFreeRule(s.N, s.D, s.Q, s.NNZ, p, false)
		}
	case "plst":
		k, ok = labelFreeRule(s.N, s.Q, labelOnes(s), p, false)
	}
	if ok {
		return min(k, most)
	}
	return most
}

// MaxDim is the largest d method id can give on data of shape s with
// parameters p, as far as the shape tells (the rank may be lower). For lda
// it is per class variable. It is 0 for an unknown method.
func MaxDim(id string, p Params, s Shape) int {
	m, ok := Lookup(id)
	if !ok {
		return 0
	}
	return dimBound(m, p, s)
}
