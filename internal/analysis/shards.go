package analysis

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// Fitting from row shards, out of core. Every method below that
// fits from sufficient statistics alone — column means, XcᵀXc, XcᵀL, the
// label means and LcᵀLc, with L the method's 0/1 (or kernel-mapped) label
// matrix — can be fitted one row shard at a time: ShardStats forms a
// shard's statistics as a Partial, Merge adds two of them, FitFromPartial
// solves from the merged whole, and ProjectShard projects the rows, shard
// by shard, with the model.
//
// # The merge
//
// The statistics are held centred, each about its own rows' means, and two
// parts a and b of nₐ and n_b rows are merged by Chan, Golub & LeVeque's
// pairwise update (Updating formulae and a pairwise algorithm for
// computing sample variances, 1979, eq. 2.1), with n = nₐ + n_b,
// δ = μ_b − μₐ (features) and ε = l̄_b − l̄ₐ (labels):
//
//	μ      = μₐ + δ·n_b/n,                l̄ = l̄ₐ + ε·n_b/n,
//	XcᵀXc  = (XcᵀXc)ₐ + (XcᵀXc)_b + (nₐn_b/n)·δδᵀ,
//	XcᵀLc  = (XcᵀLc)ₐ + (XcᵀLc)_b + (nₐn_b/n)·δεᵀ,
//	LcᵀLc  = (LcᵀLc)ₐ + (LcᵀLc)_b + (nₐn_b/n)·εεᵀ.
//
// Every term is a centred co-moment: nothing of the size N·μμᵀ is formed or
// subtracted, so a feature whose mean is large next to its spread keeps its
// digits (XᵀX − N·μμᵀ would lose log₁₀ κ of them, κ as in sparse_stats.go).
// The result does not depend on the order of the merges beyond rounding.
//
// # What is shardable
//
// The methods whose fit needs a statistic of all the rows that a shard
// cannot know are not: lpp, kcplst and mds (pairwise structure: every pair
// of rows), mlda (each row's class weights come from the label correlation
// of all the rows), the graph embeddings ge-* (each row's weight in the
// Laplacian depends on the labels, or the features, of all the rows) and
// mddmp with the rbf label kernel (its columns are the distinct label sets
// of all the rows). Shardable(id, p) says which, and why.
//
// # How the fits are reused
//
// The fits are not written twice: ShardStats runs the method's own fit on
// the shard with a shardHook in its Input, which takes the statsSpec the
// fit asks featureStats (or statsOf) for, forms those statistics on the
// D×D path and stops the fit there (errCaptured). FitFromPartial runs the
// fit again on a one-row placeholder Input whose hook answers with the
// merged statistics; the fit's own solve then runs unchanged, and the model
// it gives is the in-memory fit's, without the projected rows.

// errCaptured stops a fit run by ShardStats once its statistics are formed.
var errCaptured = errors.New("analysis: the shard's statistics are formed")

// Shardable returns nil when method id with p can be fitted from row
// shards (ShardStats, FitFromPartial), or else an *Error (Unservable; Param
// "method", or "label_kernel" for mddmp's rbf kernel) saying why not; an
// unknown method is Invalid.
func Shardable(id string, p Params) error {
	if _, ok := Lookup(id); !ok {
		return invalid("method", "unknown method %q; the methods are %s", id, strings.Join(IDs(), ", "))
	}
	why := ""
	switch id {
	case "lpp":
		why = "its neighbour graph compares every pair of rows"
	case "kcplst":
		why = "it factors the N×N kernel matrix of every pair of rows"
	case "kpca", "kmddm":
		why = "its kernel matrix compares every pair of rows (or every row with landmarks chosen from all of them)"
	case "mds":
		why = "it embeds the N×N matrix of the distances between every pair of rows"
	case "mlda":
		why = "each row's class weights come from the label correlation of all the rows, which a shard does not know"
	case "ge-hamming", "ge-euclid-y":
		why = "each row's weight in its graph Laplacian depends on the labels of all the rows, which a shard does not know"
	case "ge-gh":
		why = "each row's weight in its graph Laplacian depends on the labels of all the rows and their NMI, which a shard does not know"
	case "ge-euclid-x":
		why = "each row's weight in its graph Laplacian is its distance to the mean of all the rows, which a shard does not know"
	case "mlcssp", "faie", "rembrandt", "leml":
		why = "its fit from row shards is not built (mlcssp and faie need each row's labels or codes, rembrandt and leml were not written for merged statistics)"
	case "mddmp":
		if p.LabelKernel == KernelRBF {
			return unservable(ParamLabelKernel, 0, "mddmp with the rbf label kernel cannot be fitted from row shards: "+
				"its columns are the distinct label sets of all the rows, which a shard does not know; use the linear or quadratic kernel")
		}
	}
	if why != "" {
		return unservable("method", 0, "%s cannot be fitted from row shards: %s. Fit it in memory (on a sample of the rows if they do not fit)", id, why)
	}
	return nil
}

// partialSpec says what a Partial holds and for which data.
type partialSpec struct {
	// Method is the method the statistics were formed for; they serve
	// any method whose statistics they contain (FitFromPartial).
	Method string `json:"method"`
	// Features is D; Labels is q; Classes holds K_j for multi-dimensional
	// data (nil for multi-label).
	Features int   `json:"features"`
	Labels   int   `json:"labels"`
	Classes  []int `json:"classes,omitempty"`
	// LabelKind says what the label matrix L of the cross product is:
	// "binary" (Y), "onehot" (Z of the class variables) or "quadratic"
	// (the feature map of mddmp's quadratic kernel); LabelCols its
	// columns. Empty and 0 without a cross product.
	LabelKind string `json:"label_kind,omitempty"`
	LabelCols int    `json:"label_cols,omitempty"`
	// Gram, Cross and LabelGram say which of XcᵀXc, XcᵀLc (with the label
	// means) and LcᵀLc are held.
	Gram      bool `json:"gram"`
	Cross     bool `json:"cross"`
	LabelGram bool `json:"label_gram"`
}

// describe names what s holds, for messages: "XcᵀXc, XcᵀL and LcᵀLc of
// 14 binary label columns".
func (s partialSpec) describe() string {
	var parts []string
	if s.Gram {
		parts = append(parts, "XcᵀXc")
	}
	if s.Cross {
		parts = append(parts, "XcᵀL")
	}
	if s.LabelGram {
		parts = append(parts, "LcᵀLc")
	}
	what := "the column means"
	switch len(parts) {
	case 0:
	case 1:
		what = parts[0]
	default:
		what = strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
	}
	if s.Cross || s.LabelGram {
		what += fmt.Sprintf(" of %d %s label columns", s.LabelCols, s.LabelKind)
	}
	return what
}

// equal reports whether a and b are the same spec.
func (s partialSpec) equal(o partialSpec) bool {
	return slices.Equal(s.Classes, o.Classes) && s.Method == o.Method && s.Features == o.Features && s.Labels == o.Labels &&
		s.LabelKind == o.LabelKind && s.LabelCols == o.LabelCols &&
		s.Gram == o.Gram && s.Cross == o.Cross && s.LabelGram == o.LabelGram
}

// Partial holds the sufficient statistics of some rows of a data set for
// one method: ShardStats makes one per shard, Merge adds them, WriteTo and
// ReadPartial move them between processes, FitFromPartial fits from them.
// Every statistic is centred about the means of the rows it covers (see
// the merge above). A Partial is not safe for concurrent use while it is
// merged into.
type Partial struct {
	spec      partialSpec
	n         int
	mean      []float64     // D column means of X: their high part
	meanLo    []float64     // and their low part: μ = mean + meanLo
	gram      *mat.SymDense // XcᵀXc (D×D), or nil
	labelMean []float64     // c column means of L, with cross
	cross     *mat.Dense    // XcᵀLc (D×c), or nil
	labelGram *mat.SymDense // LcᵀLc (c×c), or nil
}

// Rows is the number of rows the statistics cover.
func (p *Partial) Rows() int { return p.n }

// Features is D, the number of feature columns.
func (p *Partial) Features() int { return p.spec.Features }

// Method is the method the statistics were formed for.
func (p *Partial) Method() string { return p.spec.Method }

// Size is the bytes the statistics hold in memory: the float64s of the
// means and matrices, the symmetric ones in full (their serialised form,
// WriteTo, holds only the upper triangles).
func (p *Partial) Size() int64 {
	return 8 * int64(partialFloats(p.spec))
}

// partialFloats counts the float64s a Partial of spec s holds in memory
// (the symmetric matrices in full, as mat.SymDense stores them).
func partialFloats(s partialSpec) float64 {
	d, c := float64(s.Features), float64(s.LabelCols)
	u := 2 * d // the means' high and low parts
	if s.Gram {
		u += d * d
	}
	if s.Cross {
		u += c + d*c
	}
	if s.LabelGram {
		u += c * c
	}
	return u
}

// labelKind is the kind of label matrix method id's fit with p forms its
// statistics with (partialSpec.LabelKind).
func labelKind(id string, p Params, multiDim bool) string {
	switch {
	case multiDim:
		return "onehot"
	case id == "mddmp" && p.LabelKernel == KernelQuadratic:
		return "quadratic"
	}
	return "binary"
}

// shardHook answers a fit's request for statistics (featureStats, statsOf)
// when the fit runs for ShardStats or FitFromPartial.
type shardHook struct {
	method string // the method fitted, for messages
	kind   string // labelKind of the fit
	// part, for FitFromPartial, holds the statistics to serve; nil for
	// ShardStats, which forms them from the rows and stops the fit.
	part *Partial
	// probe, for ShardStats' memory estimate, records the spec only.
	probe  bool
	spec   statsSpec // what the fit asked for
	got    *stats    // ShardStats: the statistics formed
	meanLo []float64 // and the low part of their means (refineMean)
}

// stats answers the fit's request for spec: with the partial's statistics
// (FitFromPartial), or by forming them on in's rows on the D×D path and
// stopping the fit with errCaptured (ShardStats).
func (h *shardHook) stats(ctx context.Context, in Input, spec statsSpec, st stage) (*stats, error) {
	if spec.weights != nil { // Shardable refuses every method that asks for one
		return nil, fmt.Errorf("analysis: %s asks for a weighted Gram matrix, which cannot be formed from row shards", h.method)
	}
	if h.part != nil {
		return h.part.serve(h.method, h.kind, spec)
	}
	h.spec = spec
	if h.probe {
		return nil, errCaptured
	}
	in.shard = nil
	s, err := statsOf(ctx, in, spec, st)
	if err != nil {
		return nil, err
	}
	_, s.dim = in.dims()
	if h.meanLo, err = s.refineMean(ctx, in); err != nil {
		return nil, err
	}
	h.got = s
	return nil, errCaptured
}

// refineMean makes the statistics of a shard centred co-moments about
// accurate means, and returns the low part r of those means (μ = μ̂ + r,
// kept apart: the merge's δ needs more digits than one float64 of μ
// holds). The column sums behind s.mean carry a rounding error of up to
// about √N·u·|μ| (u = 2⁻⁵³), which the fits of one data set never notice
// (it changes XcᵀXc in the second order only), but the merge's
// δ = μ_b − μₐ takes it in the first order: with |μ| = 10⁴·σ two shards'
// XcᵀXc would agree to only 1e-9. So a second pass sums the residuals
// r = Σᵢ(xᵢ − μ̂)/N, whose terms are small and exact (Sterbenz), and
// moves every statistic to μ̂ + r by the shift formulae:
//
//	Σ(x − μ̂ − r)(x − μ̂ − r)ᵀ = Σ(x − μ̂)(x − μ̂)ᵀ − N·rrᵀ,
//	Σ(x − μ̂ − r)(l − l̄)ᵀ     = Σ(x − μ̂)lᵀ − N·r·l̄ᵀ
//
// (the cross product is formed with L uncentred, Σ(x − μ̂)lᵀ, which the
// second formula also centres exactly). One pass over X, O(N·D), or
// O(nnz + D) on sparse features.
func (s *stats) refineMean(ctx context.Context, in Input) ([]float64, error) {
	n, d := in.dims()
	r := make([]float64, d)
	if in.Sparse != nil {
		count := make([]int, d)
		for k, j := range in.Sparse.Ind {
			r[j] += in.Sparse.Val[k] - s.mean[j]
			count[j]++
		}
		for j := range r {
			r[j] -= float64(n-count[j]) * s.mean[j]
		}
	} else {
		x := in.X.RawMatrix()
		for i := range n {
			if i%blockRows == 0 {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
			}
			for j, v := range x.Data[i*x.Stride : i*x.Stride+d] {
				r[j] += v - s.mean[j]
			}
		}
	}
	nf := float64(n)
	for j := range r {
		r[j] /= nf
	}
	if s.gram != nil {
		g := s.gram.RawSymmetric()
		for a := range d {
			row := g.Data[a*g.Stride:]
			for b := a; b < d; b++ {
				row[b] -= nf * r[a] * r[b]
			}
		}
	}
	if s.cross != nil {
		c := s.cross.RawMatrix()
		for a := range d {
			row := c.Data[a*c.Stride : a*c.Stride+c.Cols]
			for j, m := range s.labelMean {
				row[j] -= nf * r[a] * m
			}
		}
	}
	return r, nil
}

// serve gives the statistics spec asks for from p, or says what is
// missing.
func (p *Partial) serve(method, kind string, spec statsSpec) (*stats, error) {
	missing := func(what string) error {
		return invalid("", "these partial statistics hold %s (formed for %s), but %s needs %s: form the shards' statistics for %s",
			p.spec.describe(), p.spec.Method, method, what, method)
	}
	if spec.gram && !p.spec.Gram {
		return nil, missing("XcᵀXc")
	}
	mean := make([]float64, len(p.mean))
	for j, v := range p.mean {
		mean[j] = v + p.meanLo[j]
	}
	s := &stats{n: p.n, d: p.spec.Features, dim: p.spec.Features, mean: mean, gram: p.gram, borrowed: true}
	if spec.labels != nil {
		want := fmt.Sprintf("XcᵀL of %d %s label columns", spec.labels.cols, kind)
		if !p.spec.Cross || p.spec.LabelKind != kind || p.spec.LabelCols != spec.labels.cols {
			return nil, missing(want)
		}
		if spec.labelGram && !p.spec.LabelGram {
			return nil, missing("LcᵀLc of its label columns")
		}
		s.cross, s.labelMean = p.cross, p.labelMean
		if spec.labelGram {
			s.labelGram = p.labelGram
		}
	}
	return s, nil
}

// shardMethod looks method id up and checks p for a fit from shards.
func shardMethod(id string, p Params) (Method, error) {
	m, ok := Lookup(id)
	if !ok {
		return Method{}, invalid("method", "unknown method %q; the methods are %s", id, strings.Join(IDs(), ", "))
	}
	if err := p.checkCommon(m); err != nil {
		return Method{}, err
	}
	if err := checkRanges(m, p); err != nil {
		return Method{}, err
	}
	return m, Shardable(id, p)
}

// ShardStats forms the sufficient statistics of the rows of shard that
// method id with parameters p is fitted from, as a Partial to merge with
// the other shards' (Merge) and fit from (FitFromPartial). shard is an
// Input as Fit takes (dense X or sparse features, Y, Classes) of at least
// one row; shards of one data set must have the same columns and kind of
// labels. It costs one pass over the shard, O(N_s·D²) for a method that
// needs XcᵀXc (O(nnz·D) on sparse features), and holds the D×D, D×c and
// c×c statistics (EstimateShardMemory). Refusals are *Error: a method that
// is not shardable (Shardable), parameters out of range, a shard without
// rows, non-finite features or labels of the wrong kind; a canceled ctx
// gives ctx.Err(). progress (may be nil) is called as in Fit.
func ShardStats(ctx context.Context, id string, p Params, shard Input, progress Progress) (*Partial, error) {
	m, err := shardMethod(id, p)
	if err != nil {
		return nil, err
	}
	means, err := shard.validateRows(1)
	if err != nil {
		return nil, err
	}
	shard.means = means

	if err := m.checkKind(shard.MultiDim()); err != nil {
		return nil, err
	}
	h, err := runHook(ctx, m, p, shard, false, stage{p: progress, from: 0, to: 1, name: id})
	if err != nil {
		return nil, err
	}
	n, d := shard.dims()
	_, q := shard.LabelDims()
	s := h.got
	part := &Partial{n: n, mean: s.mean, meanLo: h.meanLo, gram: s.gram, labelMean: s.labelMean, cross: s.cross, labelGram: s.labelGram,
		spec: partialSpec{Method: id, Features: d, Labels: q, Classes: slices.Clone(shard.Classes),
			Gram: s.gram != nil, Cross: s.cross != nil, LabelGram: s.labelGram != nil}}
	if h.spec.labels != nil {
		part.spec.LabelKind, part.spec.LabelCols = h.kind, h.spec.labels.cols
	}
	if progress != nil {
		progress(1, "done")
	}
	return part, nil
}

// runHook runs m's fit on in with a capturing shardHook (only recording
// the spec when probe) and returns the hook once the fit has asked for its
// statistics.
func runHook(ctx context.Context, m Method, p Params, in Input, probe bool, st stage) (*shardHook, error) {
	h := &shardHook{method: m.ID, kind: labelKind(m.ID, p, in.MultiDim()), probe: probe}
	in.shard, in.path, in.route = h, pathFeatures, routeGram
	var err error
	if m.ID == "plst" {
		// plst reads the labels alone, not through featureStats: its
		// statistics are the label means and LcᵀLc of Y (with XcᵀY,
		// which the pass forms with them).
		_, err = h.stats(ctx, in, statsSpec{labels: in.ones(), labelGram: true}, st)
	} else {
		_, err = m.fit(ctx, in, p, st)
	}
	switch {
	case errors.Is(err, errCaptured):
		return h, nil
	case err != nil:
		return nil, err
	}
	return nil, fmt.Errorf("analysis: %s's fit formed no statistics for a shard", m.ID) // a bug: Shardable lets it through
}

// Merge adds other's statistics to p's (Chan et al.'s pairwise update, see
// above), so that p covers the rows of both; other is not changed. The two
// must have been formed for the same method and data: the same spec
// (method, features, labels and what is held); otherwise Merge returns an
// *Error (Invalid) saying how they differ and changes nothing.
func (p *Partial) Merge(other *Partial) error {
	if err := p.compatible(other); err != nil {
		return err
	}
	na, nb := float64(p.n), float64(other.n)
	n := na + nb
	f := na * nb / n
	// δ from the high parts (close, so their difference is exact) and
	// the low parts.
	delta := make([]float64, len(p.mean))
	for a, v := range other.mean {
		delta[a] = (v - p.mean[a]) + (other.meanLo[a] - p.meanLo[a])
	}
	var eps []float64
	if p.spec.Cross {
		eps = make([]float64, len(p.labelMean))
		for j, v := range other.labelMean {
			eps[j] = v - p.labelMean[j]
		}
	}
	if p.spec.Gram {
		mergeSym(p.gram, other.gram, f, delta)
	}
	if p.spec.Cross {
		a, b := p.cross.RawMatrix(), other.cross.RawMatrix()
		c := a.Cols
		for i := range a.Rows {
			row, brow := a.Data[i*a.Stride:i*a.Stride+c], b.Data[i*b.Stride:i*b.Stride+c]
			fd := f * delta[i]
			for j := range row {
				row[j] += brow[j] + fd*eps[j]
			}
		}
	}
	if p.spec.LabelGram {
		mergeSym(p.labelGram, other.labelGram, f, eps)
	}
	for a, v := range delta {
		p.mean[a], p.meanLo[a] = twoSum(p.mean[a], p.meanLo[a]+v*nb/n)
	}
	for j, v := range eps {
		p.labelMean[j] += v * nb / n
	}
	p.n += other.n
	return nil
}

// twoSum is a + b as the float64 s nearest it and the error e: a + b =
// s + e exactly (Knuth's TwoSum).
func twoSum(a, b float64) (s, e float64) {
	s = a + b
	bb := s - a
	return s, (a - (s - bb)) + (b - bb)
}

// mergeSym adds b + f·δδᵀ to the upper triangle of a.
func mergeSym(a, b *mat.SymDense, f float64, delta []float64) {
	ra, rb := a.RawSymmetric(), b.RawSymmetric()
	for i := range ra.N {
		row, brow := ra.Data[i*ra.Stride:i*ra.Stride+ra.N], rb.Data[i*rb.Stride:i*rb.Stride+rb.N]
		fd := f * delta[i]
		for j := i; j < ra.N; j++ {
			row[j] += brow[j] + fd*delta[j]
		}
	}
}

// compatible says why other cannot be merged into p, if it cannot.
func (p *Partial) compatible(o *Partial) error {
	if o == nil {
		return invalid("", "no partial statistics to merge")
	}
	switch a, b := p.spec, o.spec; {
	case a.Features != b.Features:
		return invalid("", "cannot merge the statistics of a shard of %d feature columns into those of %d: the shards of one data set have the same columns", b.Features, a.Features)
	case a.Labels != b.Labels || len(a.Classes) != len(b.Classes):
		return invalid("", "cannot merge the statistics of a shard of %d labels into those of %d: the shards of one data set have the same labels", b.Labels, a.Labels)
	case !a.equal(b):
		return invalid("", "cannot merge statistics formed for %s (%s) into statistics formed for %s (%s): merge only the shards of one fit",
			b.Method, b.describe(), a.Method, a.describe())
	}
	return nil
}

// FitFromPartial fits method id with p from the merged statistics of all
// the rows (part, from ShardStats and Merge). part must hold what the
// method needs: it serves the method it was formed for, and any other
// whose statistics it contains (those of cca, for instance, serve pca,
// mddmp with the linear kernel, mddmf, mvmd, mlsi, lda, plst, cplst and
// occa on the same multi-label data). The model is the one Fit gives on
// the same rows (its eigenvalues agree to about 1e-12 relative; the merge
// rounds differently), except that it has no projected rows (Projected is
// nil): project them shard by shard with ProjectShard. Refusals are
// *Error, as Fit's, and Invalid when part lacks a statistic the method
// needs or covers fewer than 2 rows; part is not changed.
func FitFromPartial(ctx context.Context, id string, p Params, part *Partial, progress Progress) (*Model, error) {
	m, err := shardMethod(id, p)
	if err != nil {
		return nil, err
	}
	if err := m.checkKind(part.spec.Classes != nil); err != nil {
		return nil, err
	}
	if part.n < 2 {
		return nil, unservable("", 0, "a reduction needs at least 2 rows, and these partial statistics cover %d: merge the other shards' statistics first", part.n)
	}
	if err := part.checkFinite(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	in := part.placeholder()
	in.shard = &shardHook{method: id, kind: labelKind(id, p, in.MultiDim()), part: part}
	st := stage{p: progress, from: 0, to: 1, name: id}
	p, seed := seedDefault(id, p, in.Classes)
	var model *Model
	if id == "plst" {
		model, err = plstFromPartial(ctx, in, p, st)
	} else {
		model, err = m.fit(ctx, in, p, st)
	}
	if err != nil {
		return nil, err
	}
	model.Projected = nil // the placeholder's row
	model.seedDim(seed, in.Classes)
	if progress != nil {
		progress(1, "done")
	}
	return model, nil
}

// plstFromPartial is fitPLST (lsdr.go) from the label statistics the hook
// serves: ZᵀZ = 4·LcᵀLc and ȳ = 2·l̄ − 1.
func plstFromPartial(ctx context.Context, in Input, p Params, st stage) (*Model, error) {
	lambda, err := positive(ParamLambda, p.Lambda, DefaultLambda)
	if err != nil {
		return nil, err
	}
	p.Lambda = Float(lambda)
	ones := in.ones()
	s, err := statsOf(ctx, in, statsSpec{labels: ones, labelGram: true}, st)
	if err != nil {
		return nil, err
	}
	ztz := mat.NewSymDense(ones.cols, nil)
	ztz.ScaleSym(4, s.labelGram)
	if err := st.sub(0.4, 0.9, "eigen-decomposition").checkpoint(ctx, 0); err != nil {
		return nil, err
	}
	e, err := symEigFor(ctx, ztz, p, true)
	if err != nil {
		return nil, err
	}
	return finishLabelModel(ctx, st.sub(0.9, 1, "codes"), "plst", p, e, "rank of ZᵀZ", newLabelSide(ones, s.labelMean))
}

// placeholder is the Input FitFromPartial runs a fit on: one row of zeros
// of the partial's features and labels (category 0 of each class
// variable), on the D×D path and the Gram route. The fit reads its
// statistics from the hook and projects only this row.
func (p *Partial) placeholder() Input {
	return Input{X: mat.NewDense(1, p.spec.Features, nil), Y: mat.NewDense(1, p.spec.Labels, nil),
		Classes: p.spec.Classes, path: pathFeatures, route: routeGram}
}

// checkFinite refuses statistics that overflowed (features too large for
// the sums of squares of all the rows) or were corrupted.
func (p *Partial) checkFinite() error {
	bad := func(v []float64) bool {
		for _, x := range v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return true
			}
		}
		return false
	}
	if bad(p.mean) || bad(p.labelMean) ||
		p.gram != nil && bad(p.gram.RawSymmetric().Data) ||
		p.cross != nil && bad(p.cross.RawMatrix().Data) ||
		p.labelGram != nil && bad(p.labelGram.RawSymmetric().Data) {
		return unservable("", 0, "the statistics of these %d rows are not finite: the sums of the features' squares overflow float64; "+
			"rescale the features, e.g. divide the columns by a power of ten or standardise them", p.n)
	}
	return nil
}

// ProjectShard projects the rows of one shard with model m, as the
// in-memory fit projects its training rows: (X − 1·μᵀ)·P = X·P − 1·(Pᵀμ)ᵀ
// for feature-space methods (X dense or sparse, never densified), the codes
// (2Y − 1 − 1·ȳᵀ)·V of the labels for label-space ones. Projecting every
// shard in order and stacking the results gives Model.Projected of the
// in-memory fit (to rounding). Refusals: a model without a projection
// (mds: ErrTransductive), a shard of other columns (*Error); a canceled
// ctx gives ctx.Err().
func ProjectShard(ctx context.Context, m *Model, shard Input) (*mat.Dense, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if m.Space == LabelSpace {
		if shard.Y == nil && shard.Labels == nil {
			return nil, invalid("", "%s projects the labels, and the shard has none", m.Method)
		}
		return m.Transform(shard.LabelMatrix())
	}
	if (shard.X == nil) == (shard.Sparse == nil) {
		return nil, invalid("", "give the shard's features dense or sparse, one of the two")
	}
	return m.Transform(shard.matrix())
}
