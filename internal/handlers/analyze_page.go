package handlers

import (
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"mldr/internal/analysis"
	"mldr/internal/evaluate"
	"mldr/internal/jobs"
	"mldr/internal/store"
	"mldr/internal/views"
	"mldr/web/templates"
)

// pageAnalyze is the form of a new analysis.
func (h *handler) pageAnalyze(w http.ResponseWriter, r *http.Request) {
	rec := datasetFrom(r)
	h.render(w, r, http.StatusOK, templates.AnalyzePage(h.analyzeView(rec, views.DefaultAnalyzeForm(rec), nil, nil)))
}

// analyzeView is a data set's analysis form (see views.Builder.Analyze).
func (h *handler) analyzeView(rec store.DatasetRecord, form templates.AnalyzeForm, checked []string, fe *templates.FormError) templates.AnalyzeView {
	v := h.build.Analyze(rec, form, checked, fe)
	v.Page = h.page("New analysis", "datasets")
	return v
}

// pageSubmitAnalysis turns the form into a job request.
func (h *handler) pageSubmitAnalysis(w http.ResponseWriter, r *http.Request) {
	rec := datasetFrom(r)
	if err := r.ParseForm(); err != nil {
		h.fail(w, r, unreadableForm(err))
		return
	}
	form := analyzeFormFrom(r.PostForm, rec)
	methods := r.PostForm["methods"]
	req, err := requestFromForm(rec.ID, methods, form)
	h.submitAnalysis(w, r, req, err, func(fe *templates.FormError) templates.AnalyzeView {
		return h.analyzeView(rec, form, methods, fe)
	})
}

// submitAnalysis queues the job of an analysis form (a data set's or a
// study's) and redirects to it; a refusal (err from reading the form, or
// the service's) shows the form again, by again, with the error.
func (h *handler) submitAnalysis(w http.ResponseWriter, r *http.Request, req jobs.Request, err error, again func(*templates.FormError) templates.AnalyzeView) {
	if err == nil {
		var j jobs.Job
		if j, err = h.jobs.Submit(req); err == nil {
			http.Redirect(w, r, "/jobs/"+j.ID+"?notice=started", http.StatusSeeOther)
			return
		}
	}
	status, body := classify(err, "")
	if status >= 500 {
		h.fail(w, r, err)
		return
	}
	fe := &templates.FormError{Message: views.Sentence(body.Error), Field: body.Field}
	h.render(w, r, status, templates.AnalyzePage(again(fe)))
}

// analyzeFormFrom reads the analysis form's fields.
func analyzeFormFrom(f url.Values, rec store.DatasetRecord) templates.AnalyzeForm {
	return templates.AnalyzeForm{DimMode: f.Get("dim_mode"), D: f.Get("d"), Thr: f.Get("thr"), Beta: f.Get("beta"), Gamma: f.Get("gamma"),
		Lambda: f.Get("lambda"), Ridge: f.Get("ridge"), LabelKernel: f.Get("label_kernel"), K: f.Get("k"), Normalize: f.Get("normalize"),
		Kernel: f.Get("kernel"), Degree: f.Get("degree"), Coef0: f.Get("coef0"),
		Landmarks: f.Get("landmarks"), LandmarkSampling: f.Get("landmark_sampling"), LandmarkSeed: f.Get("landmark_seed"),
		Alpha: f.Get("alpha"), Oversample: f.Get("oversample"), PowerIters: f.Get("power_iters"), Iterations: f.Get("iterations"),
		MDSKind: f.Get("mds_kind"), Starts: f.Get("starts"), MDSSeed: f.Get("mds_seed"),
		Classifier: f.Get("classifier"), SplitKind: f.Get("split"), TestFraction: f.Get("test_fraction"), Folds: f.Get("folds"),
		Seed: f.Get("seed"), GridMode: f.Get("grid_mode"), Grid: f.Get("grid"), GridOf: f.Get("grid_of"),
		EvalK: f.Get("eval_k"), EvalLambda: f.Get("eval_lambda"), EvalC: f.Get("eval_c"), EvalEps: f.Get("eval_eps"),
		PsA: f.Get("ps_a"), PsB: f.Get("ps_b"), Recall: f.Get("recall"), Baseline: f.Get("baseline"), Preprocess: f.Get("preprocess"), HasFolds: rec.Folds > 0, SeedDim: views.SeedDimText(rec)}
}

// requestFromForm builds a job request from the form: only the parameters
// the ticked methods take are sent.
func requestFromForm(dataset string, methods []string, f templates.AnalyzeForm) (jobs.Request, error) {
	req := jobs.Request{Dataset: dataset, Preprocess: f.Preprocess} // checked by the service
	if len(methods) == 1 {
		req.Method = methods[0]
	} else {
		req.Methods = methods
	}
	takes := map[string]bool{}
	for _, id := range methods {
		if m, ok := analysis.Lookup(id); ok {
			for _, t := range m.Takes {
				takes[t] = true
			}
		}
	}
	num := func(field, s string) (*float64, error) {
		s = strings.TrimSpace(s)
		if s == "" {
			return nil, nil
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, badRequest("params."+field, "%s must be a number, not %q", field, s)
		}
		return &v, nil
	}
	var err error
	p := &req.Params
	giveD := takes[analysis.ParamD] && (f.DimMode == "d" || (!takes[analysis.ParamThr] && strings.TrimSpace(f.D) != ""))
	if giveD {
		d, err := strconv.Atoi(strings.TrimSpace(f.D))
		if err != nil || d < 1 {
			return req, badRequest("params.d", "d must be a whole number of at least 1, not %q", f.D)
		}
		p.D = d
	} else if takes[analysis.ParamThr] && strings.TrimSpace(f.Thr) != "" && f.DimMode != "seed" { // seed: neither, seed 003's d′
		t, err := num("thr", f.Thr)
		if err != nil {
			return req, err
		}
		p.Thr = *t
	}
	for _, x := range []struct {
		name string
		val  string
		dst  **float64
	}{{analysis.ParamBeta, f.Beta, &p.Beta}, {analysis.ParamGamma, f.Gamma, &p.Gamma}, {analysis.ParamLambda, f.Lambda, &p.Lambda}, {analysis.ParamRidge, f.Ridge, &p.Ridge}, {analysis.ParamAlpha, f.Alpha, &p.Alpha}} {
		if takes[x.name] {
			if *x.dst, err = num(x.name, x.val); err != nil {
				return req, err
			}
		}
	}
	if takes[analysis.ParamLabelKernel] && f.LabelKernel != "" && f.LabelKernel != analysis.KernelLinear {
		p.LabelKernel = f.LabelKernel
	}
	if takes[analysis.ParamNormalize] && f.Normalize != "" && f.Normalize != analysis.NormalizeUnit {
		p.Normalize = f.Normalize // the default is not sent
	}
	if takes[analysis.ParamK] && strings.TrimSpace(f.K) != "" {
		if p.K, err = strconv.Atoi(strings.TrimSpace(f.K)); err != nil {
			return req, badRequest("params.k", "k must be a whole number, not %q", f.K)
		}
	}
	if err := kernelFromForm(p, takes, f); err != nil {
		return req, err
	}
	for _, x := range []struct {
		name, val string
		dst       **int
	}{{analysis.ParamOversample, f.Oversample, &p.Oversample}, {analysis.ParamPowerIters, f.PowerIters, &p.PowerIters}, {analysis.ParamIterations, f.Iterations, nil}} {
		if !takes[x.name] || strings.TrimSpace(x.val) == "" {
			continue
		}
		v, err := strconv.Atoi(strings.TrimSpace(x.val))
		if err != nil {
			return req, badRequest("params."+x.name, "%s must be a whole number, not %q", x.name, x.val)
		}
		if x.dst == nil {
			p.Iterations = v
		} else {
			*x.dst = &v
		}
	}
	if err := mdsFromForm(p, takes, f); err != nil {
		return req, err
	}
	if f.Classifier != "none" {
		e := &jobs.Evaluate{Classifier: f.Classifier}
		if e.K, err = atoiOr(f.EvalK, 0); err != nil {
			return req, badRequest("evaluate.k", "the classifier's k must be a whole number")
		}
		if l, err := num("lambda", f.EvalLambda); err != nil {
			return req, badRequest("evaluate.lambda", "the classifier's ridge must be a number")
		} else if l != nil {
			e.Lambda = *l
		}
		svm := f.Classifier == evaluate.ClassifierSVM // the other classifiers take neither c nor eps
		for _, x := range []struct {
			name, whose, val string
			send             bool
			def              float64 // a value not sent, the API's default (0: none)
			dst              *float64
		}{
			{"c", "the svm's", f.EvalC, svm, 0, &e.C}, {"eps", "the svm's", f.EvalEps, svm, 0, &e.Eps},
			// Only the multi-label form has them; the default is not sent.
			{"ps_a", "the propensity model's", f.PsA, true, evaluate.DefaultPropensityA, &e.PsA},
			{"ps_b", "the propensity model's", f.PsB, true, evaluate.DefaultPropensityB, &e.PsB},
			{"recall", "the neighbour search's", f.Recall, f.Classifier == evaluate.ClassifierKNN, evaluate.DefaultRecall, &e.Recall},
		} {
			if !x.send {
				continue
			}
			v, err := num(x.name, x.val)
			switch {
			case err != nil:
				return req, badRequest("evaluate."+x.name, "%s %s must be a number, not %q", x.whose, x.name, x.val)
			case v != nil && *v <= 0: // 0 would mean the default to the API
				return req, badRequest("evaluate."+x.name, "%s %s must be greater than 0, not %s", x.whose, x.name, x.val)
			case v != nil && *v != x.def:
				*x.dst = *v
			}
		}
		for _, part := range strings.FieldsFunc(f.Grid, func(r rune) bool { return r == ',' || r == ' ' || r == ';' }) {
			v, err := strconv.ParseFloat(part, 64)
			if err != nil {
				return req, badRequest("evaluate.dims", "the values of d are numbers separated by commas, not %q", part)
			}
			if f.GridMode == "percent" {
				e.Percent = append(e.Percent, v)
			} else {
				e.Dims = append(e.Dims, int(v))
			}
		}
		if f.GridMode == "percent" {
			e.Of = f.GridOf
		}
		switch f.Baseline {
		case "", "with": // the default is not sent
		case "without":
			e.Baseline = new(false)
		default:
			return req, badRequest("evaluate.baseline", "the baseline is evaluated \"with\" the methods or left out (\"without\"), not %q", f.Baseline)
		}
		req.Evaluate = e
		s := &jobs.Split{Kind: f.SplitKind}
		if s.Seed, err = parseSeed(f.Seed); err != nil {
			return req, badRequest("split.seed", "the seed must be a whole number of at least 1")
		}
		switch s.Kind {
		case jobs.SplitHoldout:
			if t, err := num("test_fraction", f.TestFraction); err != nil {
				return req, badRequest("split.test_fraction", "the test share must be a number")
			} else if t != nil {
				s.TestFraction = *t
			}
		case jobs.SplitKFold:
			if s.Folds, err = atoiOr(f.Folds, 0); err != nil {
				return req, badRequest("split.folds", "folds must be a whole number")
			}
		}
		req.Split = s
	}
	return req, nil
}

func atoiOr(s string, def int) (int, error) {
	if s = strings.TrimSpace(s); s == "" {
		return def, nil
	}
	return strconv.Atoi(s)
}

func parseSeed(s string) (uint64, error) {
	if s = strings.TrimSpace(s); s == "" {
		return 0, nil
	}
	return strconv.ParseUint(s, 10, 64)
}

// kernelFromForm reads the kernel parameters of kpca and kmddm into p when
// a ticked method takes them: the kernel, and the poly kernel's degree and
// c₀ only with the poly kernel (the form keeps their defaults shown for
// the others); the landmarks when given, and their sampling and seed only
// with them. Defaults are not sent.
func kernelFromForm(p *analysis.Params, takes map[string]bool, f templates.AnalyzeForm) error {
	if !takes[analysis.ParamKernel] {
		return nil
	}
	if f.Kernel != "" && f.Kernel != analysis.KernelRBF {
		p.Kernel = f.Kernel
	}
	if p.Kernel == analysis.KernelPoly {
		if s := strings.TrimSpace(f.Degree); s != "" && s != strconv.Itoa(analysis.DefaultDegree) {
			d, err := strconv.Atoi(s)
			if err != nil || d < 1 {
				return badRequest("params.degree", "degree must be a whole number of at least 1, not %q", f.Degree)
			}
			p.Degree = d
		}
		if s := strings.TrimSpace(f.Coef0); s != "" {
			c, err := strconv.ParseFloat(s, 64)
			if err != nil || math.IsNaN(c) || math.IsInf(c, 0) {
				return badRequest("params.coef0", "coef0 must be a number, not %q", f.Coef0)
			}
			if c != analysis.DefaultCoef0 {
				p.Coef0 = &c
			}
		}
	}
	s := strings.TrimSpace(f.Landmarks)
	if s == "" {
		return nil
	}
	m, err := strconv.Atoi(s)
	if err != nil || m < 1 {
		return badRequest("params.landmarks", "landmarks must be a whole number of at least 1, not %q", f.Landmarks)
	}
	p.Landmarks = m
	if f.LandmarkSampling != "" && f.LandmarkSampling != analysis.SamplingKMeansPP {
		p.LandmarkSampling = f.LandmarkSampling
	}
	if s := strings.TrimSpace(f.LandmarkSeed); s != "" {
		seed, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return badRequest("params.landmark_seed", "landmark_seed must be a whole number of 0 or more, not %q", f.LandmarkSeed)
		}
		p.LandmarkSeed = &seed
	}
	return nil
}

// mdsFromForm reads mds's kind, starts and seed (the form's mds_seed) into
// p; classical, the default, is left unsaid.
func mdsFromForm(p *analysis.Params, takes map[string]bool, f templates.AnalyzeForm) error {
	if !takes[analysis.ParamMDSKind] {
		return nil
	}
	if k := strings.TrimSpace(f.MDSKind); k != "" && k != analysis.MDSClassical {
		p.MDSKind = k
	}
	if s := strings.TrimSpace(f.Starts); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil {
			return badRequest("params.starts", "starts must be a whole number, not %q", f.Starts)
		}
		p.Starts = v
	}
	if s := strings.TrimSpace(f.MDSSeed); s != "" {
		seed, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return badRequest("params.seed", "seed must be a whole number of 0 or more, not %q", f.MDSSeed)
		}
		p.Seed = &seed
	}
	return nil
}
