package jobs

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"mldr/internal/analysis"
	"mldr/internal/evaluate"
	"mldr/internal/plots"
	"mldr/internal/store"
)

// checkMemory refuses, with 413, a request whose job would hold more than
// lim.MaxJobMemory at its peak.
func (r *Request) checkMemory(ds DatasetLookup, lim Limits) error {
	if lim.MaxJobMemory <= 0 {
		return nil
	}
	train, err := ds.Dataset(r.Dataset)
	if err != nil {
		return err
	}
	var test store.DatasetRecord
	if r.TestDataset != "" {
		if test, err = ds.Dataset(r.TestDataset); err != nil {
			return err
		}
	}
	_, f, err := admitJob(*r, train, test, lim.MaxJobMemory, realEstimators(), true)
	if err != nil || f == nil {
		return err
	}
	return &RequestError{Status: http.StatusRequestEntityTooLarge, Field: f.field, Msg: f.message()}
}

// MethodMemory says whether a job of method id alone on data set rec, with
// the method's default parameters and no evaluation, fits MaxJobMemory;
// when it does not, reason says why in a sentence for the analysis form.
// Without a limit every method fits.
func (l Limits) MethodMemory(rec store.DatasetRecord, id string) (reason string, fits bool) {
	if l.MaxJobMemory <= 0 {
		return "", true
	}
	req := Request{Dataset: rec.ID, Method: id}
	req.Normalize()
	_, f, err := admitJob(req, rec, store.DatasetRecord{}, l.MaxJobMemory, realEstimators(), false)
	if err != nil || f == nil {
		return "", true // an unknown method is the form's to refuse
	}
	return f.short(), false
}

// refusal is why a job does not fit, and what would.
type refusal struct {
	field   string
	subject string // what needs the memory: a method, the evaluation, the data
	need    int64  // the job's peak with it
	what    string // the largest thing it holds, or ""
	limit   int64
	fits    []string // what would fit, as noun phrases
	hint    string   // with no fits: what to do, a sentence ("": a sample and fewer features)
	extra   string   // a sentence after the rest, or ""
}

func (f refusal) message() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s would need about %s here", f.subject, store.FormatBytes(f.need))
	if f.what != "" {
		fmt.Fprintf(&b, " (%s)", f.what)
	}
	fmt.Fprintf(&b, ", more than the %s a job may use (the -max-job-memory limit).", store.FormatBytes(f.limit))
	switch {
	case len(f.fits) > 0:
		alt := joinOr(f.fits)
		fmt.Fprintf(&b, " %s would fit.", strings.ToUpper(alt[:1])+alt[1:])
	case f.hint != "":
		b.WriteString(" " + f.hint)
	default:
		b.WriteString(" Use a sample of the rows and fewer features.")
	}
	if f.extra != "" {
		b.WriteString(" " + f.extra)
	}
	return b.String()
}

// short is the refusal for the analysis form, beside the method.
func (f refusal) short() string {
	s := "Needs about " + store.FormatBytes(f.need) + " with these data"
	if f.what != "" {
		s += " (" + f.what + ")"
	}
	return s + "; a job may use at most " + store.FormatBytes(f.limit) + "."
}

// joinOr writes "", "a", "a or b", "a, b or c".
func joinOr(s []string) string {
	if len(s) <= 1 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

// admit returns nil when the request's job fits in limit bytes, else why
// not: the data when they alone exceed it, else the method that needs the
// most when one does (the evaluation fits each method again), else the
// evaluation; and with suggest, what would fit instead.
func admit(req Request, train, test store.DatasetRecord, limit int64, est estimators, suggest bool) (*refusal, error) {
	sh := shapeOfJob(req, train, test)
	// A worker keeps decompositions of earlier jobs, at most CacheBudget.
	estimate := func(req Request, sh jobShape) (Estimate, error) {
		e, err := estimateShape(req, sh, est)
		c := CacheBudget(limit)
		e.Overhead, e.Peak = e.Overhead+c, e.Peak+c
		return e, err
	}
	e, err := estimate(req, sh)
	if err != nil {
		return nil, err
	}
	if e.Peak <= limit {
		return nil, nil
	}
	fits := func(req Request, sh jobShape) bool {
		if !suggest {
			return false
		}
		e, err := estimate(req, sh)
		return err == nil && e.Peak <= limit
	}
	base := e.Overhead + e.Data
	worst, phase := -1, int64(0)
	for i, m := range e.Methods {
		if m.Phase() > phase {
			worst, phase = i, m.Phase()
		}
	}
	f := &refusal{limit: limit}
	sample := func() {
		if n := largest(2, sh.train-1, func(n int) bool { return fits(req, sh.withRows(n)) }); n > 0 {
			f.fits = append(f.fits, "a sample of at most about "+group(roundDown(n))+" rows")
		}
	}
	switch evalPhase := e.Kept + e.Evaluation; {
	case base > limit:
		f.field, f.subject, f.need = "dataset", "the data as loaded", base
		f.what = fmt.Sprintf("%s rows × %s features and %s labels, with the copies the split makes", group(sh.all()), group(sh.d), group(sh.q))
		if sh.sparse {
			f.what = fmt.Sprintf("%s rows × %s features stored sparse as %s non-zero values, and %s labels, with the copies the split makes",
				group(sh.all()), group(sh.d), group(int(sh.nnz())), group(sh.q))
		}
		sample()
	case base+phase <= limit: // every method fits alone: the evaluation is what does not
		f.field, f.need = "evaluate", base+evalPhase
		f.subject = fmt.Sprintf("the evaluation with %s on %s test rows", classifierName(req.Evaluate.Classifier, sh.classes != nil), group(sh.testPart))
		if n := largest(1, sh.testPart-1, func(n int) bool { return fits(req, sh.withTestPart(n)) }); n > 0 {
			f.fits = append(f.fits, "fewer test rows (at most about "+group(roundDown(n))+")")
		}
		other := *req.Evaluate
		other.Classifier, other.C, other.Eps = evaluate.ClassifierRidge, 0, 0
		if req.Evaluate.Classifier == evaluate.ClassifierRidge {
			other.Classifier = evaluate.ClassifierMLkNN
		}
		alt := req
		alt.Evaluate = &other
		if fits(alt, sh) {
			f.fits = append(f.fits, classifierName(other.Classifier, sh.classes != nil))
		}
		none := req
		none.Evaluate, none.Split = nil, &Split{Kind: SplitNone}
		if fits(none, shapeOfJob(none, train, test)) {
			f.fits = append(f.fits, "no evaluation")
		}
		sample()
	default:
		m := e.Methods[worst]
		desc, _ := analysis.Lookup(m.ID)
		p := req.Params.Only(desc.Takes)
		f.field, f.subject, f.need = "method", m.ID, base+phase
		if len(req.Methods) > 0 {
			f.field = "methods"
		}
		f.what = describe(m.ID, p, sh.fitShape(), m.Fit)
		if m.ID == "mddmp" && (p.LabelKernel == analysis.KernelQuadratic || p.LabelKernel == analysis.KernelRBF) {
			linear := req
			linear.Params.LabelKernel = ""
			if fits(linear, sh) {
				f.field, f.subject = "params.label_kernel", "mddmp with label_kernel="+p.LabelKernel
				f.fits = append(f.fits, "the linear label kernel")
			}
		}
		if b := analysis.KernelBasisRows(m.ID, p, sh.fitShape()); b > 0 { // kpca, kmddm: the exact dual, or landmarks
			with := func(k int) Request {
				r := req
				r.Params.Landmarks = k
				return r
			}
			if k := largest(1, min(b-1, analysis.MaxLandmarks), func(k int) bool { return fits(with(k), sh) }); k > 0 {
				f.fits = append(f.fits, "Nyström landmarks (landmarks at most about "+group(roundDown(k))+")")
			}
		}
		if d := largest(1, sh.d-1, func(d int) bool { return fits(req, sh.withFeatures(d)) }); d > 0 {
			f.fits = append(f.fits, "fewer features (at most about "+group(roundDown(d))+")")
		}
		if sh.classes == nil {
			if q := largest(1, sh.q-1, func(q int) bool {
				return analysis.Check(m.ID, p, sh.withLabels(q).fitShape()) == nil && fits(req, sh.withLabels(q))
			}); q > 0 {
				f.fits = append(f.fits, "fewer labels (at most about "+group(roundDown(q))+")")
			}
		}
		if alts := otherMethods(req, m.ID, sh, fits); len(alts) > 0 {
			f.fits = append(f.fits, "another method ("+alts+")")
		}
		sample()
	}
	return f, nil
}

// otherMethods lists, up to three and an ellipsis, the methods that the
// data allow, the request does not name, and that fit in place of id.
func otherMethods(req Request, id string, sh jobShape, fits func(Request, jobShape) bool) string {
	ids := req.MethodIDs()
	var ok []string
	for _, m := range analysis.Methods() {
		if slices.Contains(ids, m.ID) || analysis.Check(m.ID, analysis.Params{}, sh.fitShape()) != nil {
			continue
		}
		alt := req
		alt.Method, alt.Methods = "", slices.Clone(ids)
		alt.Methods[slices.Index(ids, id)] = m.ID
		if fits(alt, sh) {
			ok = append(ok, m.ID)
		}
	}
	if len(ok) > 3 {
		return strings.Join(ok[:3], ", ") + "…"
	}
	return joinOr(ok)
}

// unsupervised are the methods that never read the labels, labelsOnly
// those that never read the features (kcplst's kernel is of the rows).
var (
	unsupervised = map[string]bool{"pca": true, "mds": true, "lpp": true, "kpca": true}
	labelsOnly   = map[string]bool{"plst": true, "kcplst": true, "mlcssp": true}
)

// describe names the largest matrix a fit of id on shape s holds, when it
// is at least a quarter of the fit's estimate fit; else "".
func describe(id string, p analysis.Params, s analysis.Shape, fit int64) string {
	n, d, q := int64(s.N), int64(s.D), int64(s.Q)
	type matrix struct {
		bytes int64
		what  string
	}
	cands := []matrix{
		{8 * d * d, fmt.Sprintf("a %s × %s matrix of the features", group(s.D), group(s.D))},
		{8 * n * n, fmt.Sprintf("a %s × %s matrix of the rows", group(s.N), group(s.N))},
	}
	if n < d && !labelsOnly[id] { // the N×N path's factorisation of the rows
		cands = append(cands, matrix{8 * n * d, fmt.Sprintf("the factorisation of its %s rows of %s features", group(s.N), group(s.D))})
	}
	if b := int64(analysis.KernelBasisRows(id, p, s)); b > 0 && b < n { // kpca, kmddm: Nyström
		cands = append(cands, matrix{8 * n * b, fmt.Sprintf("the kernel of its %s rows with %s landmarks", group(s.N), group(int(b)))})
	}
	if !unsupervised[id] { // a method that never reads the labels forms no matrix of them
		cands = append(cands, matrix{8 * q * q, fmt.Sprintf("a %s × %s matrix of the labels", group(s.Q), group(s.Q))})
	}
	if id == "mddmp" && p.LabelKernel == analysis.KernelQuadratic {
		cols := q * (q + 1) / 2
		cands = append(cands, matrix{8 * n * cols, fmt.Sprintf("the %s columns of the quadratic label kernel for %s rows", group(int(cols)), group(s.N))})
	}
	best := matrix{}
	for _, c := range cands {
		if c.bytes <= fit && 4*c.bytes >= fit && c.bytes > best.bytes {
			best = c
		}
	}
	return best.what
}

// classifierName names classifier c in a sentence, as the data know it:
// on multi-dimensional data mlknn and knn are both the k-NN vote.
func classifierName(c string, multiDim bool) string {
	switch {
	case c == evaluate.ClassifierRidge:
		return "ridge"
	case c == evaluate.ClassifierSVM:
		return "the linear SVM"
	case multiDim || c == evaluate.ClassifierKNN:
		return "the k-NN vote"
	}
	return "ML-kNN"
}

// largest is the largest x in [lo, hi] for which ok holds, ok being true
// up to some x and false beyond; 0 when it fails at lo.
func largest(lo, hi int, ok func(int) bool) int {
	if hi < lo || !ok(lo) {
		return 0
	}
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		if ok(mid) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// roundDown keeps two significant digits of n, rounding down: 38417 →
// 38000, so that "at most about" stays true.
func roundDown(n int) int {
	p := 1
	for n/p >= 100 {
		p *= 10
	}
	return n / p * p
}

// group writes n with its thousands separated by a space, as the pages
// and figures do: 60000 → "60 000".
func group(n int) string { return plots.GroupDigits(n) }
