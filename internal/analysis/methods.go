package analysis

import (
	"context"
	"slices"
	"strings"
)

// Method describes one reduction the product offers.
type Method struct {
	// ID is the method's id in the API (METHODS.md).
	ID string
	// Name is its usual name; Summary one line on what it does.
	Name, Summary string
	// Paper cites where it comes from.
	Paper string
	Space Space
	// Takes lists the parameters it accepts, by API name.
	Takes []string
	// MultiLabel and MultiDim tell which kinds of data it accepts.
	MultiLabel, MultiDim bool
	// MaxN, for methods that need pairwise structure, is the largest
	// number of rows they accept (0: no limit), and MaxNWhy says why.
	MaxN    int
	MaxNWhy string

	fit func(ctx context.Context, in Input, p Params, st stage) (*Model, error)
	// mem is the estimate of fit's peak live heap, in float64s (8 bytes),
	// beyond X and Y (EstimateMemory).
	mem func(p Params, s Shape) float64
	// Transductive says the method embeds the rows it is fitted on and
	// projects no others (Transform returns ErrTransductive): an
	// evaluation fits it on a split's training and test rows together.
	Transductive bool

	// densify says the fit needs the rows themselves (pairwise distances):
	// sparse features are made dense for it.
	densify bool
}

const (
	seed000 = "Zhang & Zhou, Multi-Label Dimensionality Reduction via Dependence Maximization, AAAI 2008"
	seed001 = "Chen & Lin, Feature-aware Label Space Dimension Reduction for Multi-label Classification, NIPS 2012"
	seed002 = "Graph-embedding dimensionality reduction with (generalized) Hamming distance and label normalized mutual information (poster)"
	seed003 = "Jia & Zhang, Supervised dimensionality reduction for multi-dimensional classification, Sci Sin Inform 2023"
	seed004 = "A multi-label feature extraction algorithm via maximizing feature variance and feature-label dependence simultaneously (MVMD)"
)

var (
	dThr          = []string{ParamD, ParamThr}
	dThrBeta      = []string{ParamD, ParamThr, ParamBeta}
	dThrRidgeNorm = []string{ParamD, ParamThr, ParamRidge, ParamNormalize}
	dThrLambda    = []string{ParamD, ParamThr, ParamLambda}
	kernelTakes   = []string{ParamD, ParamThr, ParamKernel, ParamGamma, ParamDegree, ParamCoef0, ParamLandmarks, ParamLandmarkSampling, ParamLandmarkSeed}
)

// methods is the registry, in the order the pages list them. It is never
// modified.
var methods = []Method{
	{ID: "pca", Name: "PCA", Summary: "Directions of largest feature variance; ignores the labels.",
		Paper: "Jolliffe, Principal Component Analysis (baseline of seeds 000, 003, 004)", Space: FeatureSpace,
		Takes: dThr, MultiLabel: true, MultiDim: true, fit: fitPCA, mem: memPCA},
	{ID: "mddmp", Name: "MDDM (orthonormal directions)", Summary: "Directions that maximise the HSIC dependence between projected features and labels.",
		Paper: seed000 + ", eq. 3–4", Space: FeatureSpace,
		Takes: []string{ParamD, ParamThr, ParamLabelKernel, ParamGamma}, MultiLabel: true,
		MaxN: 0, fit: fitMDDMp, mem: memMDDMp},
	{ID: "mddmf", Name: "MDDM (orthonormal features)", Summary: "MDDM with projected features made uncorrelated, balanced by β against orthonormal directions.",
		Paper: seed004 + ", eq. 19–20", Space: FeatureSpace, Takes: dThrBeta, MultiLabel: true, fit: fitMDDMf, mem: memMDDMf},
	{ID: "mvmd", Name: "MVMD", Summary: "Maximises feature variance (PCA) and feature–label dependence (MDDM) together, balanced by β.",
		Paper: seed004 + ", eq. 34–37", Space: FeatureSpace, Takes: dThrBeta, MultiLabel: true, fit: fitMVMD, mem: memMVMD},
	{ID: "mlsi", Name: "MLSI", Summary: "Multi-label informed latent semantic indexing: feature and label structure balanced by β.",
		Paper: "Yu, Yu & Tresp, Multi-label informed latent semantic indexing, SIGIR 2005 (baseline of seeds 000, 004)", Space: FeatureSpace,
		Takes: []string{ParamD, ParamThr, ParamBeta, ParamRidge, ParamNormalize}, MultiLabel: true, fit: fitMLSI, mem: memMLSI},
	{ID: "cca", Name: "CCA", Summary: "Canonical correlation analysis between features and labels, as a feature projection.",
		Paper: seed001 + ", §2.2", Space: FeatureSpace, Takes: dThrRidgeNorm, MultiLabel: true, MultiDim: true, fit: fitCCA, mem: memCCA},
	{ID: "lpp", Name: "LPP", Summary: "Locality preserving projections of a k-nearest-neighbour graph; ignores the labels.",
		Paper: "He & Niyogi, Locality Preserving Projections, NIPS 2003 (baseline of seed 000)", Space: FeatureSpace,
		Takes: []string{ParamD, ParamThr, ParamK, ParamGamma, ParamRidge, ParamNormalize}, MultiLabel: true, MultiDim: true,
		MaxN: maxNLPP, MaxNWhy: "its neighbour graph compares every pair of rows (N² distance computations)", fit: fitLPP, mem: memLPP, densify: true},
	{ID: "lda", Name: "LDA", Summary: "Fisher's linear discriminant, per class variable (multi-dimensional data) or on single-label data.",
		Paper: "Fisher 1936; per class variable as in " + seed003 + ", §4.4", Space: FeatureSpace,
		Takes: dThrRidgeNorm, MultiLabel: true, MultiDim: true, fit: fitLDA, mem: memLDA},
	{ID: "mlda", Name: "MLDA", Summary: "Multi-label LDA: scatter matrices weighted by label correlation.",
		Paper: "Wang, Ding & Huang, Multi-label linear discriminant analysis, ECCV 2010 (baseline of seed 004)", Space: FeatureSpace,
		Takes: dThrRidgeNorm, MultiLabel: true, fit: fitMLDA, mem: memMLDA},
	{ID: "ge-hamming", Name: "Graph embedding, Hamming", Summary: "Pushes apart rows whose label sets differ, by Hamming distance.",
		Paper: seed002 + ", eq. 3", Space: FeatureSpace, Takes: dThr, MultiLabel: true, MultiDim: true, fit: fitGEHamming, mem: memGraph},
	{ID: "ge-euclid-y", Name: "Graph embedding, Euclidean on labels", Summary: "Pushes apart rows by the squared Euclidean distance of their label vectors.",
		Paper: seed002, Space: FeatureSpace, Takes: dThr, MultiLabel: true, MultiDim: true, fit: fitGEEuclidY, mem: memGraph},
	{ID: "ge-euclid-x", Name: "Graph embedding, Euclidean on features", Summary: "Pushes apart rows by the squared Euclidean distance of their features; ignores the labels.",
		Paper: seed002, Space: FeatureSpace, Takes: dThr, MultiLabel: true, MultiDim: true, fit: fitGEEuclidX, mem: memGEEuclidX},
	{ID: "ge-gh", Name: "Graph embedding, generalized Hamming", Summary: "Hamming distance corrected by the labels' normalised mutual information.",
		Paper: seed002 + ", eq. 10", Space: FeatureSpace, Takes: dThr, MultiLabel: true, MultiDim: true, fit: fitGEGH, mem: memGEGH},
	{ID: "sdem", Name: "SDeM", Summary: "MDDM for multi-dimensional data: HSIC with the one-hot class variables; d ≤ ΣK_j − q.",
		Paper: seed003 + ", algorithm 1", Space: FeatureSpace, Takes: dThr, MultiDim: true, fit: fitSDeM, mem: memSDeM},
	{ID: "mds", Name: "MDS", Summary: "Embedding that keeps the rows' Euclidean distances: classical (exact), metric or nonmetric (SMACOF); transductive, evaluated by embedding the training and test rows together.",
		Paper: "Torgerson 1952; de Leeuw 1977 (SMACOF); Kruskal 1964 (nonmetric) (baseline of " + seed003 + ")", Space: FeatureSpace,
		Takes: []string{ParamD, ParamThr, ParamMDSKind, ParamSeed, ParamStarts, ParamIterations}, MultiLabel: true, MultiDim: true, Transductive: true, fit: fitMDS, mem: memMDS},
	{ID: "kpca", Name: "Kernel PCA", Summary: "PCA in the feature space of an rbf, poly or linear kernel (the centred kernel matrix's eigenvectors); ignores the labels.",
		Paper: "Schölkopf, Smola & Müller, Nonlinear component analysis as a kernel eigenvalue problem, Neural Computation 1998", Space: FeatureSpace,
		Takes: kernelTakes, MultiLabel: true, MultiDim: true, fit: fitKPCA, mem: memKPCA, densify: true},
	{ID: "kmddm", Name: "Kernel MDDM", Summary: "MDDM in the feature space of an rbf, poly or linear kernel: the dual problem KHLHKα = λKα.",
		Paper: seed000 + ", eq. 3–4 in the dual form with the kernel trick (§ MDDM)", Space: FeatureSpace,
		Takes: append(slices.Clone(kernelTakes), ParamLabelKernel), MultiLabel: true, fit: fitKMDDM, mem: memKMDDM, densify: true},
	{ID: "plst", Name: "PLST", Summary: "Principal label space transformation: the label directions of largest variance.",
		Paper: "Tai & Lin 2012, as in " + seed001 + ", §2.1", Space: LabelSpace, Takes: dThrLambda, MultiLabel: true, fit: fitPLST, mem: memPLST},
	{ID: "occa", Name: "OCCA", Summary: "Orthogonally constrained CCA: label directions easiest to predict from the features.",
		Paper: seed001 + ", eq. 3–4", Space: LabelSpace, Takes: []string{ParamD, ParamLambda}, MultiLabel: true, fit: fitOCCA, mem: memOCCA},
	{ID: "cplst", Name: "CPLST", Summary: "Conditional PLST: label directions that balance encoding and prediction error.",
		Paper: seed001 + ", algorithm 1", Space: LabelSpace, Takes: dThrLambda, MultiLabel: true, fit: fitCPLST, mem: memCPLST},
	{ID: "kcplst", Name: "Kernel CPLST", Summary: "CPLST with Gaussian-kernel ridge regression from the features.",
		Paper: seed001 + ", eq. 8", Space: LabelSpace, Takes: []string{ParamD, ParamThr, ParamGamma, ParamLambda}, MultiLabel: true,
		MaxN: maxNKCPLST, MaxNWhy: "it factors the N×N kernel matrix (N² memory, N³ time)", fit: fitKCPLST, mem: memKCPLST, densify: true},
	// The label-space baselines of the LSDR literature (lsbase.go).
	{ID: "mlcssp", Name: "ML-CSSP", Summary: "Codes are M label columns sampled by leverage score; the labels are decoded by least squares from them.",
		Paper: "Bi & Kwok, Efficient Multi-label Classification with Many Labels, ICML 2013 (leverage-score column sampling, least-squares decoding)", Space: LabelSpace,
		Takes: dThrLambda, MultiLabel: true, fit: fitMLCSSP, mem: memMLCSSP},
	{ID: "faie", Name: "FaIE", Summary: "Implicit codes of the rows that are both recoverable to the labels and predictable from the features.",
		Paper: "Lin, Ding, Hu & Wang, Multi-label Classification via Feature-aware Implicit Label Space Encoding, ICML 2014 (linear predictability term)", Space: LabelSpace,
		Takes: []string{ParamD, ParamThr, ParamLambda, ParamAlpha}, MultiLabel: true, fit: fitFaIE, mem: memFaIE},
	{ID: "rembrandt", Name: "Rembrandt", Summary: "CPLST's label directions by a randomized range finder: the top right singular vectors of the labels projected on the features.",
		Paper: "Mineiro & Karampatziakis, Fast Label Embeddings via Randomized Linear Algebra, ECML-PKDD 2015 (randomized SVD of Π_X·Y)", Space: LabelSpace,
		Takes: []string{ParamD, ParamLambda, ParamOversample, ParamPowerIters}, MultiLabel: true, fit: fitRembrandt, mem: memRembrandt},
	{ID: "leml", Name: "LEML", Summary: "Low-rank linear regression W = UVᵀ from features to labels by alternating least squares; V spans the label codes.",
		Paper: "Yu, Jain, Kar & Dhillon, Large-scale Multi-label Learning with Missing Labels, ICML 2014 (squared loss, every label observed)", Space: LabelSpace,
		Takes: []string{ParamD, ParamLambda, ParamIterations}, MultiLabel: true, fit: fitLEML, mem: memLEML},
}

// Methods lists every method, in the order the pages show them.
func Methods() []Method { return slices.Clone(methods) }

// Lookup finds a method by id.
func Lookup(id string) (Method, bool) {
	for _, m := range methods {
		if m.ID == id {
			return m, true
		}
	}
	return Method{}, false
}

// IDs lists the method ids.
func IDs() []string {
	ids := make([]string, len(methods))
	for i, m := range methods {
		ids[i] = m.ID
	}
	return ids
}

// Fit fits method id to in with p, reporting progress (may be nil). It
// checks everything it can before any work: the method and its parameters,
// the data (finite, the right kind of labels, enough rows, not more than
// the method's MaxN). Refusals are *Error; a canceled ctx gives ctx.Err().
func Fit(ctx context.Context, id string, in Input, p Params, progress Progress) (*Model, error) {
	m, ok := Lookup(id)
	if !ok {
		return nil, invalid("method", "unknown method %q; the methods are %s", id, strings.Join(IDs(), ", "))
	}
	if err := p.checkCommon(m); err != nil {
		return nil, err
	}
	if err := checkRanges(m, p); err != nil {
		return nil, err
	}
	if err := in.validate(); err != nil {
		return nil, err
	}

	if err := m.checkKind(in.MultiDim()); err != nil {
		return nil, err
	}
	if n, _ := in.dims(); m.MaxN > 0 && n > m.MaxN {
		return nil, unservable("method", m.MaxN, "%s accepts at most %d rows because %s; these data have %d. "+
			"Use a sample of the rows, or a method without pairwise structure", m.ID, m.MaxN, m.MaxNWhy, n)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var note string
	if m.densify {
		in, note = in.densified(m.ID)
	}
	p, seed := seedDefault(m.ID, p, in.Classes)
	model, err := m.fit(ctx, in, p, stage{p: progress, from: 0, to: 1, name: m.ID})
	if err != nil {
		return nil, err
	}
	if note != "" {
		model.Notes = append(model.Notes, note)
	}
	model.seedDim(seed, in.Classes)
	if progress != nil {
		progress(1, "done")
	}
	return model, nil
}

// checkKind refuses labels of a kind the method does not take.
func (m Method) checkKind(multiDim bool) error {
	switch {
	case multiDim && !m.MultiDim:
		alt := ""
		if m.ID == "mddmp" || m.ID == "mddmf" {
			alt = "; sdem is MDDM for multi-dimensional data"
		}
		return unservable("method", 0, "%s needs multi-label data, and these are multi-dimensional%s", m.ID, alt)
	case !multiDim && !m.MultiLabel:
		return unservable("method", 0, "%s needs multi-dimensional data (class variables), and these are multi-label", m.ID)
	}
	return nil
}
