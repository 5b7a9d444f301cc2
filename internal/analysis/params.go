package analysis

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Params are the parameters of a fit. A zero D or Thr, a nil pointer and an
// empty LabelKernel mean "not given": the method's default applies. Give D
// or Thr, not both; with neither, Thr = DefaultThr.
type Params struct {
	// D is the target dimension d (M for label-space methods).
	D int `json:"d,omitempty"`
	// Thr picks the smallest d whose eigenvalues keep this fraction, in
	// (0, 1], of the sum of the positive eigenvalues.
	Thr float64 `json:"thr,omitempty"`
	// Beta is the balance β of mddmf, mvmd and mlsi.
	Beta *float64 `json:"beta,omitempty"`
	// Gamma is a Gaussian kernel width: exp(−γ‖a−b‖²) (kcplst's features,
	// mddmp's RBF label kernel, lpp's heat kernel).
	Gamma *float64 `json:"gamma,omitempty"`
	// Lambda is the regression ridge of plst, occa, cplst and kcplst.
	Lambda *float64 `json:"lambda,omitempty"`
	// Ridge is added to the right-hand matrix of a generalised problem
	// (mlsi, cca, lpp, lda, mlda).
	Ridge *float64 `json:"ridge,omitempty"`
	// LabelKernel is mddmp's label kernel: linear, quadratic or rbf.
	LabelKernel string `json:"label_kernel,omitempty"`
	// K is the number of neighbours of lpp's graph.
	K int `json:"k,omitempty"`
	// Normalize is how the generalised problems (mlsi, cca, lpp, lda, mlda)
	// scale their directions: NormalizeUnit (the default) or NormalizeB.
	Normalize string `json:"normalize,omitempty"`
	// Kernel is the feature kernel of kpca and kmddm: KernelRBF (the
	// default), KernelPoly or KernelLinear; Gamma is its γ, Degree and
	// Coef0 the poly kernel's degree and c₀.
	Kernel string   `json:"kernel,omitempty"`
	Degree int      `json:"degree,omitempty"`
	Coef0  *float64 `json:"coef0,omitempty"`
	// Landmarks is the number m of Nyström landmarks of kpca and kmddm
	// (0: the exact dual up to MaxNKernelExact rows, DefaultLandmarks
	// above); LandmarkSampling chooses them (SamplingKMeansPP, the
	// default, or SamplingUniform), seeded by LandmarkSeed (default 1).
	Landmarks        int     `json:"landmarks,omitempty"`
	LandmarkSampling string  `json:"landmark_sampling,omitempty"`
	LandmarkSeed     *uint64 `json:"landmark_seed,omitempty"`
	// Alpha weighs faie's predictability term against its recoverability
	// term (≥ 0).
	Alpha *float64 `json:"alpha,omitempty"`
	// Oversample and PowerIters shape rembrandt's randomized range finder:
	// the extra sketch columns and the subspace (power) iterations (≥ 0).
	Oversample *int `json:"oversample,omitempty"`
	PowerIters *int `json:"power_iters,omitempty"`
	// Iterations bounds leml's alternating least-squares sweeps and the
	// Guttman transforms of each start of metric and nonmetric mds (≥ 1).
	Iterations int `json:"iterations,omitempty"`
	// MDSKind is mds's kind: MDSClassical (the default), MDSMetric or
	// MDSNonmetric. The last two start Starts times (default
	// DefaultMDSStarts) from configurations drawn with Seed (default
	// DefaultMDSSeed) and keep the start of least stress.
	MDSKind string  `json:"mds_kind,omitempty"`
	Seed    *uint64 `json:"seed,omitempty"`
	Starts  int     `json:"starts,omitempty"`

	// MaxDim is not a parameter of the API but what the caller will ask of
	// the model: the largest d it will cut it to with WithDim or Choose,
	// when that is more than D (or thr) gives, so that Fit computes no
	// eigenpair beyond it. 0: nothing beyond the model's own Dim, which is
	// all a model fitted with D (or thr) can then give; MaxDimAll: any d up
	// to the rank (every eigenpair, as a percentage of the rank needs).
	// With MaxDim > 0 and neither D nor Thr, no threshold applies: Dim is
	// MaxDim, or the rank when that is smaller. It is never stored in
	// JSON.
	MaxDim int `json:"-"`
}

// MaxDimAll is Params.MaxDim for a caller that may cut the model to any d
// up to its rank.
const MaxDimAll = -1

// Parameter names, as in the API.
const (
	ParamD           = "d"
	ParamThr         = "thr"
	ParamBeta        = "beta"
	ParamGamma       = "gamma"
	ParamLambda      = "lambda"
	ParamRidge       = "ridge"
	ParamLabelKernel = "label_kernel"
	ParamK           = "k"
	ParamNormalize   = "normalize"

	ParamKernel           = "kernel"
	ParamDegree           = "degree"
	ParamCoef0            = "coef0"
	ParamLandmarks        = "landmarks"
	ParamLandmarkSampling = "landmark_sampling"
	ParamLandmarkSeed     = "landmark_seed"
	ParamAlpha            = "alpha"
	ParamOversample       = "oversample"
	ParamPowerIters       = "power_iters"
	ParamIterations       = "iterations"
	ParamMDSKind          = "mds_kind"
	ParamSeed             = "seed"
	ParamStarts           = "starts"
)

// Defaults.
const (
	DefaultThr    = 0.99
	DefaultBeta   = 0.5
	DefaultLambda = 0.1
	DefaultK      = 10

	// DefaultDegree and DefaultCoef0 are the poly kernel's, as
	// scikit-learn's KernelPCA.
	DefaultDegree = 3
	DefaultCoef0  = 1.0
	// DefaultLandmarks is the Nyström landmarks kpca and kmddm take above
	// MaxNKernelExact rows when landmarks is not given.
	DefaultLandmarks = 1000
	// DefaultLandmarkSeed seeds the landmark choice when landmark_seed is
	// not given.
	DefaultLandmarkSeed = 1
	// DefaultAlpha, DefaultOversample, DefaultPowerIters and
	// DefaultIterations are faie's α, rembrandt's sketch and leml's
	// largest number of sweeps (lsbase.go says why).
	DefaultAlpha      = 1.0
	DefaultOversample = 10
	DefaultPowerIters = 2
	DefaultIterations = 200
)

// Normalisations of the directions of a generalised problem A p = λ B p
// (mlsi, cca, lpp, lda, mlda).
const (
	// NormalizeUnit scales every direction to unit length, ‖p‖ = 1, as the
	// reference code of the papers' baselines (FSDR) does before it
	// projects. The default.
	NormalizeUnit = "unit"
	// NormalizeB keeps the directions B-orthonormal, PᵀBP = I, the
	// solution of the generalised eigenproblem as LAPACK's dsygv gives it.
	NormalizeB = "b"
)

// Label kernels of mddmp.
const (
	KernelLinear    = "linear"
	KernelQuadratic = "quadratic"
	KernelRBF       = "rbf"
	// KernelPoly is the polynomial feature kernel (γ·aᵀb + c₀)^degree of
	// kpca and kmddm (which also take KernelRBF and KernelLinear).
	KernelPoly = "poly"
)

// Given lists the parameters p gives, by API name.
func (p Params) Given() []string {
	var g []string
	add := func(name string, given bool) {
		if given {
			g = append(g, name)
		}
	}
	add(ParamD, p.D != 0)
	add(ParamThr, p.Thr != 0)
	add(ParamBeta, p.Beta != nil)
	add(ParamGamma, p.Gamma != nil)
	add(ParamLambda, p.Lambda != nil)
	add(ParamRidge, p.Ridge != nil)
	add(ParamLabelKernel, p.LabelKernel != "")
	add(ParamK, p.K != 0)
	add(ParamNormalize, p.Normalize != "")
	add(ParamKernel, p.Kernel != "")
	add(ParamDegree, p.Degree != 0)
	add(ParamCoef0, p.Coef0 != nil)
	add(ParamLandmarks, p.Landmarks != 0)
	add(ParamLandmarkSampling, p.LandmarkSampling != "")
	add(ParamLandmarkSeed, p.LandmarkSeed != nil)
	add(ParamAlpha, p.Alpha != nil)
	add(ParamOversample, p.Oversample != nil)
	add(ParamPowerIters, p.PowerIters != nil)
	add(ParamIterations, p.Iterations != 0)
	add(ParamMDSKind, p.MDSKind != "")
	add(ParamSeed, p.Seed != nil)
	add(ParamStarts, p.Starts != 0)
	return g
}

// Only returns p without the parameters not in names, for runs that give
// several methods one set of parameters.
func (p Params) Only(names []string) Params {
	keep := func(n string) bool { return slices.Contains(names, n) }
	var q Params
	if keep(ParamD) {
		q.D = p.D
	}
	if keep(ParamThr) {
		q.Thr = p.Thr
	}
	if keep(ParamBeta) {
		q.Beta = p.Beta
	}
	if keep(ParamGamma) {
		q.Gamma = p.Gamma
	}
	if keep(ParamLambda) {
		q.Lambda = p.Lambda
	}
	if keep(ParamRidge) {
		q.Ridge = p.Ridge
	}
	if keep(ParamLabelKernel) {
		q.LabelKernel = p.LabelKernel
	}
	if keep(ParamK) {
		q.K = p.K
	}
	if keep(ParamNormalize) {
		q.Normalize = p.Normalize
	}
	if keep(ParamKernel) {
		q.Kernel = p.Kernel
	}
	if keep(ParamDegree) {
		q.Degree = p.Degree
	}
	if keep(ParamCoef0) {
		q.Coef0 = p.Coef0
	}
	if keep(ParamLandmarks) {
		q.Landmarks = p.Landmarks
	}
	if keep(ParamLandmarkSampling) {
		q.LandmarkSampling = p.LandmarkSampling
	}
	if keep(ParamLandmarkSeed) {
		q.LandmarkSeed = p.LandmarkSeed
	}
	if keep(ParamAlpha) {
		q.Alpha = p.Alpha
	}
	if keep(ParamOversample) {
		q.Oversample = p.Oversample
	}
	if keep(ParamPowerIters) {
		q.PowerIters = p.PowerIters
	}
	if keep(ParamIterations) {
		q.Iterations = p.Iterations
	}
	if keep(ParamMDSKind) {
		q.MDSKind = p.MDSKind
	}
	if keep(ParamSeed) {
		q.Seed = p.Seed
	}
	if keep(ParamStarts) {
		q.Starts = p.Starts
	}
	q.MaxDim = p.MaxDim // the caller's, not a parameter
	return q
}

// checkCommon validates what every method shares: the parameters it takes,
// and d or thr.
func (p Params) checkCommon(m Method) error {
	for _, g := range p.Given() {
		if !slices.Contains(m.Takes, g) {
			return invalid(g, "%s does not take the parameter %s (it takes %s)", m.ID, g, strings.Join(m.Takes, ", "))
		}
	}
	if p.D != 0 && p.Thr != 0 {
		return invalid(ParamD, "give d or thr, not both")
	}
	if p.D < 0 {
		return invalid(ParamD, "d must be at least 1, not %d", p.D)
	}
	if p.Thr != 0 && !(p.Thr > 0 && p.Thr <= 1) {
		return invalid(ParamThr, "thr must be in (0, 1], not %v", p.Thr)
	}
	if p.MaxDim < MaxDimAll {
		return fmt.Errorf("analysis: MaxDim = %d; want MaxDimAll, 0 or a largest d", p.MaxDim)
	}
	if p.K < 0 {
		return invalid(ParamK, "k must be at least 1, not %d", p.K)
	}
	if p.Degree < 0 || p.Landmarks < 0 {
		name, v := ParamDegree, p.Degree
		if p.Landmarks < 0 {
			name, v = ParamLandmarks, p.Landmarks
		}
		return invalid(name, "%s must be at least 1, not %d", name, v)
	}
	for _, f := range []struct {
		name string
		v    *float64
	}{{ParamBeta, p.Beta}, {ParamGamma, p.Gamma}, {ParamLambda, p.Lambda}, {ParamRidge, p.Ridge}, {ParamCoef0, p.Coef0}, {ParamAlpha, p.Alpha}} {
		if f.v != nil && (math.IsNaN(*f.v) || math.IsInf(*f.v, 0)) {
			return invalid(f.name, "%s must be a finite number, not %v", f.name, *f.v)
		}
	}
	return nil
}

// beta returns β (default DefaultBeta) after checking it lies in [0, hi],
// or [0, hi) when open.
func (p Params) beta(hi float64, open bool) (float64, error) {
	b := DefaultBeta
	if p.Beta != nil {
		b = *p.Beta
	}
	if b < 0 || b > hi || (open && b == hi) {
		r := fmt.Sprintf("[0, %v]", hi)
		if open {
			r = fmt.Sprintf("[0, %v)", hi)
		}
		return 0, invalid(ParamBeta, "beta must be in %s, not %v", r, b)
	}
	return b, nil
}

// positive returns a positive parameter, or def when it is not given.
func positive(name string, v *float64, def float64) (float64, error) {
	if v == nil {
		return def, nil
	}
	if *v <= 0 {
		return 0, invalid(name, "%s must be greater than 0, not %v", name, *v)
	}
	return *v, nil
}

// nonNegative returns a parameter ≥ 0, or def when it is not given.
func nonNegative(name string, v *float64, def float64) (float64, error) {
	if v == nil {
		return def, nil
	}
	if *v < 0 {
		return 0, invalid(name, "%s must be 0 or more, not %v", name, *v)
	}
	return *v, nil
}

// normalization returns how a generalised problem scales its directions:
// p.Normalize, or NormalizeUnit when it is not given (checkRanges has
// refused any other value).
func (p Params) normalization() string {
	if p.Normalize == "" {
		return NormalizeUnit
	}
	return p.Normalize
}

// mdsKind is mds's kind: p.MDSKind, or MDSClassical when it is not given.
func (p Params) mdsKind() string {
	if p.MDSKind == "" {
		return MDSClassical
	}
	return p.MDSKind
}

// SMACOF reports whether p asks mds for a kind fitted by SMACOF (metric or
// nonmetric): not nested in d, from random starts, on at most MaxNSMACOF
// rows.
func (p Params) SMACOF() bool { k := p.mdsKind(); return k == MDSMetric || k == MDSNonmetric }

// checkMDS checks mds's own parameters: a known kind; seed and starts
// only for the kinds that iterate, thr only for classical. iterations is
// also leml's: in a job of both, classical mds (exact) leaves it to leml.
func checkMDS(p Params) error {
	k := p.mdsKind()
	switch {
	case !slices.Contains([]string{MDSClassical, MDSMetric, MDSNonmetric}, k):
		return invalid(ParamMDSKind, "mds_kind must be %s, %s or %s, not %q", MDSClassical, MDSMetric, MDSNonmetric, k)
	case k == MDSClassical && (p.Seed != nil || p.Starts != 0):
		name := ParamSeed
		if p.Starts != 0 {
			name = ParamStarts
		}
		return invalid(name, "classical mds is exact (an eigen-decomposition): it takes no seed or starts; "+
			"give mds_kind metric or nonmetric, or leave %s out", name)
	case k != MDSClassical && p.Thr != 0:
		return invalid(ParamThr, "thr picks d from the eigenvalues of classical mds; %s mds has none (its coordinates are not nested): give d", k)
	case p.Starts < 0 || p.Starts > maxMDSStarts:
		return invalid(ParamStarts, "starts must be in 1…%d, not %d", maxMDSStarts, p.Starts)
	}
	return nil
}

// Float returns a pointer to v, for Params fields.
func Float(v float64) *float64 { return &v }

// Int returns a pointer to v, for Params fields.
func Int(v int) *int { return &v }
