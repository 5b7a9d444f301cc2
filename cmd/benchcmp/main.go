// Command benchcmp times the product's reductions against numpy on
// OpenBLAS, side by side, on the same seeded data, and prints a Markdown
// table: each side's median time and peak memory, their ratio, and how
// closely their leading eigenvalues agree.
//
//	go run ./cmd/benchcmp [-methods pca,mddmp] [-sizes 100k,20k,eigen,wide,e2e,eval,mlknn,xc] [-xc eurlex-4k] [-reps 3] [-out FILE]
//
// The data (100 000×1 000 features with 100 labels or 10 class variables,
// 20 000×2 000 with 100 labels, a 2 000×2 000 positive semi-definite
// matrix, 20 000×5 000 sparse features at 2 % density with 400 labels,
// 50 000×500 features with 20 labels as a CSV file) are generated once
// into a cache directory as .npy files (and the CSV). Each measurement runs
// in a child process: this command re-executed with a hidden flag for the
// Go side, which times analysis.Fit (the code path of the jobs), and
// scripts/bench/numpy_ref.py under /usr/bin/python3 for the numpy side,
// which times the same algebra written as a numpy user would; the wide
// sparse rows also run scripts/bench/scipy_ref.py, scipy's sparse route.
// The end-to-end rows build and start the webapp, upload the CSV and time
// jobs through the HTTP API. The evaluation rows (-sizes eval) time
// 10-fold evaluation jobs on Mulan data sets through the API against the
// same protocol in numpy + scikit-learn (scripts/bench/sklearn_eval.py),
// and compare their metrics; the ML-kNN rows (-sizes mlknn) time the
// product's ML-kNN against scikit-learn's NearestNeighbors and the same
// counting in numpy. The XC rows (-sizes xc) generate a data set shaped
// like one of the Extreme Classification Repository's (-xc; package
// xcdata), upload it and time a job per method at d = 100 and the four in
// one job with a 5-fold k-NN vote evaluation (all+eval) through the API,
// the product alone, reporting what is refused or fails. The parent reads
// each child's peak resident memory from wait4.
//
// docs/BENCHMARKS.md says what is measured, how, and the latest results.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchcmp:", err)
		os.Exit(1)
	}
}

// What every method is given, and the eigen case's k.
const (
	// benchD is the target dimension d given to every method but the
	// wide rows'.
	benchD = 10
	// wideD is the target dimension d of the wide rows, and how many
	// leading eigenvalues they compare.
	wideD = 20
	// eigenK is how many eigenpairs the eigen case computes.
	eigenK = 50
	// agreeTop is how many leading eigenvalues a method's children report.
	agreeTop = 5
	// workEigen is the eigen case's name in -methods.
	workEigen = "eigen"
)

// config is what the command is run with.
type config struct {
	methods, sizes []string
	reps           int
	warmupUnder    time.Duration
	cacheDir       string
	out            string
	python, script string
	seed           uint64
	scale          float64
	tol            float64
	// sparseTol is the agreement tolerance against scipy's iterative
	// eigsh and svds (the wide rows).
	sparseTol float64
	// webapp is the webapp binary of the end-to-end and evaluation rows;
	// "" builds one.
	webapp string
	// datasets is the directory of the evaluation rows' Mulan data sets.
	datasets string
	// xcSet names the XC rows' generated data set (xcdata.Lookup).
	xcSet string
	// metricsTol is the difference of a metric from which an evaluation
	// row (its Hamming loss) or an ML-kNN row (any metric) is a mismatch.
	metricsTol float64
	// child, when set, is a Go child's task (JSON); generate a generator
	// child's (JSON).
	child, generate string
}

// parseConfig reads the flags. -help prints the visible ones (the child
// flag is for the command itself).
func parseConfig(args []string, stderr io.Writer) (config, error) {
	var c config
	var methods, sizes string
	fs := flag.NewFlagSet("benchcmp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&methods, "methods", "all", "comma-separated works to run: mddmp, sdem, cplst, pca, mvmd, mlsi, cca, mddmf, eigen; "+
		"scene, yeast, medical (the eval rows' data sets); mlknn; or all")
	fs.StringVar(&sizes, "sizes", defaultSizes, "comma-separated sizes to run: 100k (N=100000, D=1000, q=100), 20k (N=20000, D=2000, q=100), eigen (2000×2000), "+
		"wide (N=20000, D=5000 sparse at 2%, q=400, d=20, also against scipy), e2e (jobs through the webapp's HTTP API on N=50000, D=500, q=20), "+
		"eval (10-fold evaluation jobs on scene, yeast and medical against numpy + scikit-learn, some 3 minutes), "+
		"mlknn (ML-kNN alone on N=10000, 50000, 200000, D=10, q=100 against scikit-learn's NearestNeighbors, some 7 minutes a rep), "+
		"xc (the -xc data set generated, uploaded, and a job per method of pca, mddmp, plst, cplst at d = 100, then the four in one job with a 5-fold k-NN vote evaluation (all+eval), and pca and mddmp fitted on the training file and scored on the test file (test+eval), through the webapp, the product alone); "+
		defaultSizes+" runs "+strings.Join(defaultSizeList(), ",")+", all every size")
	fs.IntVar(&c.reps, "reps", 3, "timed runs per work and side; the table gives their median")
	fs.DurationVar(&c.warmupUnder, "warmup-under", 5*time.Second, "a first run shorter than this is an untimed warm-up; a longer one is the first timed run")
	fs.StringVar(&c.cacheDir, "cache", filepath.Join(os.TempDir(), "mldr-benchcmp"), "directory of the generated .npy data, reused when present (about 2 GB); the end-to-end rows' webapp keeps its data in a temporary directory here")
	fs.StringVar(&c.out, "out", "", "also write the report to this file")
	fs.StringVar(&c.python, "python", "/usr/bin/python3", "Python with numpy for the reference side; empty runs the Go side only")
	fs.StringVar(&c.script, "script", filepath.Join("scripts", "bench", "numpy_ref.py"), "the numpy reference script; scipy_ref.py, the wide rows' sparse reference, is looked for beside it")
	fs.Uint64Var(&c.seed, "seed", 1, "seed of the generated data")
	fs.Float64Var(&c.scale, "scale", 1, "multiply every N by this (0.05 gives a quick check of the machinery; the eigen matrix keeps its size)")
	fs.Float64Var(&c.tol, "tol", 1e-6, "relative difference of the leading eigenvalues from which a row is a mismatch")
	fs.Float64Var(&c.sparseTol, "sparse-tol", 1e-6, "the same against scipy's iterative eigsh and svds (the wide rows), run with their default tolerance")
	fs.StringVar(&c.webapp, "webapp", "", "the webapp binary for the e2e and eval rows; empty builds ./cmd/webapp into a temporary directory (give a -tags openblas build to time that one)")
	fs.StringVar(&c.datasets, "datasets", filepath.Join("..", "shared", "datasets"), "directory of the eval rows' data sets (scene/scene.csv, yeast/yeast.csv, medical/medical.arff and medical.xml)")
	fs.StringVar(&c.xcSet, "xc", xcDefaultSet, "the xc rows' generated data set, shaped like the Extreme Classification Repository's: "+
		"bibtex, delicious, mediamill, eurlex-4k, wiki10-31k or amazoncat-13k; -scale multiplies its rows")
	fs.Float64Var(&c.metricsTol, "metrics-tol", 1e-9, "difference of a metric from which an eval row (its Hamming loss) or an mlknn row (any metric) is a mismatch")
	fs.StringVar(&c.child, childFlag, "", "internal: run as the Go child of this task (JSON)")
	fs.StringVar(&c.generate, generateFlag, "", "internal: generate the data of this case (JSON)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: go run ./cmd/benchcmp [flags]\n\n"+
			"Times the methods of internal/analysis against numpy on OpenBLAS, each in a child\n"+
			"process, on the same seeded data, and prints Markdown tables (see docs/BENCHMARKS.md):\n"+
			"the wide sparse rows also against scipy's sparse route, the end-to-end rows as jobs\n"+
			"through the webapp's HTTP API. Every method gets d = %d (%d on the wide rows) and its\n"+
			"defaults otherwise. The eval rows time 10-fold evaluation jobs through the API against the\n"+
			"same protocol in numpy + scikit-learn (scripts/bench/sklearn_eval.py), the mlknn rows the\n"+
			"product's ML-kNN against scikit-learn's NearestNeighbors, the xc rows jobs on a generated data set of\n"+
			"thousands of labels (-xc); they run when -sizes names them.\n"+
			"A mismatch of the eigenvalues or metrics, or a failed side, makes the exit status 1.\n\nFlags:\n", benchD, wideD)
		fs.VisitAll(func(f *flag.Flag) {
			if f.Name == childFlag || f.Name == generateFlag {
				return
			}
			def := ""
			if f.DefValue != "" {
				def = " (default " + f.DefValue + ")"
			}
			fmt.Fprintf(stderr, "  -%s\n    \t%s%s\n", f.Name, f.Usage, def)
		})
	}
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	switch {
	case c.reps < 1:
		return c, fmt.Errorf("-reps must be at least 1, not %d", c.reps)
	case !(c.scale > 0 && c.scale <= 1):
		return c, fmt.Errorf("-scale must be in (0, 1], not %v", c.scale)
	case !(c.tol > 0):
		return c, fmt.Errorf("-tol must be positive, not %v", c.tol)
	case !(c.sparseTol > 0):
		return c, fmt.Errorf("-sparse-tol must be positive, not %v", c.sparseTol)
	case !(c.metricsTol > 0):
		return c, fmt.Errorf("-metrics-tol must be positive, not %v", c.metricsTol)
	}
	c.methods, c.sizes = splitList(methods), splitList(sizes)
	if sizes == defaultSizes {
		c.sizes = defaultSizeList()
	}
	return c, nil
}

// defaultSizes is -sizes' default: every size but the evaluation, ML-kNN
// and XC rows, which take long (the product's ML-kNN at N = 200 000 some 6
// minutes a run on 2 cores) and are asked for by name.
const defaultSizes = "default"

// defaultSizeList is what defaultSizes runs.
func defaultSizeList() []string { return []string{"100k", "20k", "eigen", "wide", "e2e"} }

// splitList splits a comma-separated flag value; "all" (or nothing) gives
// nil, meaning no filter.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" && p != "all" {
			out = append(out, p)
		}
	}
	return out
}

// run is the command: a Go child when -child is given, else the benchmark.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := parseConfig(args, stderr)
	if err != nil {
		return err
	}
	switch {
	case cfg.child != "":
		return runGoChild(ctx, cfg.child, stdout)
	case cfg.generate != "":
		return runGenerator(ctx, cfg.generate, stderr)
	}
	return bench(ctx, cfg, stdout, stderr)
}

// dataSize is one shape of the benchmark's data.
type dataSize struct {
	name    string  // as -sizes names it
	n, d, q int     // rows, features (the eigen matrix is d×d), labels
	density float64 // share of non-zero features (sparse data), 0 for dense
}

// caseKind says which table a case belongs to.
type caseKind int

const (
	// kindDense cases time analysis.Fit on dense features against numpy.
	kindDense caseKind = iota
	// kindWide cases time analysis.Fit on sparse features against numpy
	// on the same data made dense and against scipy's sparse route.
	kindWide
	// kindE2E cases time a job through the webapp's HTTP API against
	// numpy's algebra alone.
	kindE2E
	// kindEval cases time a k-fold evaluation job through the webapp's
	// HTTP API against the same protocol in numpy + scikit-learn; the work
	// is the data set's name.
	kindEval
	// kindMLkNN cases time the product's ML-kNN against scikit-learn's
	// NearestNeighbors and the same counting in numpy.
	kindMLkNN
	// kindXC cases time a job of their method on the generated XC data set
	// (-xc) through the webapp's HTTP API, the product alone.
	kindXC
)

// benchCase is one row of the table: a work on a size.
type benchCase struct {
	work     string // a method id of package analysis, or workEigen
	size     dataSize
	multiDim bool // class variables instead of 0/1 labels (sdem)
	kind     caseKind
}

// text describes the case's data for the size column.
func (c benchCase) text() string {
	s := c.size
	switch {
	case c.work == workEigen:
		return fmt.Sprintf("%d×%d, top %d", s.d, s.d, eigenK)
	case c.multiDim:
		return fmt.Sprintf("%d×%d, %d×%d classes", s.n, s.d, classVars, classCount)
	case c.kind == kindWide:
		return fmt.Sprintf("%d×%d, %g%% dense, q = %d", s.n, s.d, 100*s.density, s.q)
	case c.kind == kindEval:
		return "Mulan's " + c.work
	case c.kind == kindXC:
		return fmt.Sprintf("the -xc data set, d = %d", xcD)
	case c.kind == kindMLkNN:
		ntr := mlknnTrainRows(s.n)
		return fmt.Sprintf("%d + %d rows, D = %d, q = %d", ntr, s.n-ntr, s.d, s.q)
	}
	return fmt.Sprintf("%d×%d, q = %d", s.n, s.d, s.q)
}

// targetD is the d the case's methods are given.
func (c benchCase) targetD() int {
	if c.kind == kindWide {
		return wideD
	}
	return benchD
}

// top is how many leading eigenvalues the case's sides report and compare.
func (c benchCase) top() int {
	switch {
	case c.work == workEigen:
		return eigenK
	case c.kind == kindWide:
		return wideD
	}
	return agreeTop
}

// allCases lists every row of the table, in order, with every N
// multiplied by scale.
func allCases(scale float64) []benchCase {
	rows := func(n int) int { return max(200, int(math.Round(float64(n)*scale))) }
	big := dataSize{name: "100k", n: rows(100_000), d: 1_000, q: 100}
	mid := dataSize{name: "20k", n: rows(20_000), d: 2_000, q: 100}
	wide := dataSize{name: "wide", n: rows(20_000), d: 5_000, q: 400, density: 0.02}
	stored := dataSize{name: "e2e", n: rows(50_000), d: 500, q: 20}
	var cs []benchCase
	for _, m := range []string{"mddmp", "sdem", "cplst", "pca", "mvmd", "mlsi", "cca", "mddmf"} {
		cs = append(cs, benchCase{work: m, size: big, multiDim: m == "sdem"})
	}
	for _, m := range []string{"pca", "mddmp", "cplst", "mvmd"} {
		cs = append(cs, benchCase{work: m, size: mid})
	}
	cs = append(cs, benchCase{work: workEigen, size: dataSize{name: "eigen", d: 2_000}})
	for _, m := range []string{"pca", "mddmp", "cplst", "mvmd"} {
		cs = append(cs, benchCase{work: m, size: wide, kind: kindWide})
	}
	for _, m := range []string{"pca", "mddmp"} {
		cs = append(cs, benchCase{work: m, size: stored, kind: kindE2E})
	}
	for _, set := range evalSets("") {
		cs = append(cs, benchCase{work: set.name, size: dataSize{name: "eval"}, kind: kindEval})
	}
	for _, n := range []int{10_000, 50_000, 200_000} {
		cs = append(cs, benchCase{work: workMLkNN, size: dataSize{name: workMLkNN, n: rows(n), d: mlknnFeatures, q: mlknnLabels}, kind: kindMLkNN})
	}
	for _, m := range xcMethods() {
		cs = append(cs, benchCase{work: m, size: dataSize{name: xcSize}, kind: kindXC})
	}
	return cs
}

// wideCase is the first wide row at scale, whose data the end-to-end rows
// upload as the sparse CSV.
func wideCase(scale float64) benchCase {
	for _, c := range allCases(scale) {
		if c.kind == kindWide {
			return c
		}
	}
	panic("benchcmp: allCases has no wide row")
}

// selectCases keeps the cases whose work is in methods and size in sizes
// (nil keeps all). A name that matches no case is an error, and so is an
// empty selection.
func selectCases(all []benchCase, methods, sizes []string) ([]benchCase, error) {
	var works, names []string
	for _, c := range all {
		works = append(works, c.work)
		names = append(names, c.size.name)
	}
	for _, m := range methods {
		if !slices.Contains(works, m) {
			return nil, fmt.Errorf("-methods: %q is not benchmarked; choose among %s", m, strings.Join(uniq(works), ", "))
		}
	}
	for _, s := range sizes {
		if !slices.Contains(names, s) {
			return nil, fmt.Errorf("-sizes: %q is not a size; choose among %s", s, strings.Join(uniq(names), ", "))
		}
	}
	var out []benchCase
	for _, c := range all {
		if (methods == nil || slices.Contains(methods, c.work)) && (sizes == nil || slices.Contains(sizes, c.size.name)) {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no work of -methods is run at the -sizes chosen (the eval, mlknn and xc rows run only when -sizes names them)")
	}
	return out, nil
}

// uniq is s without repeats, in order.
func uniq(s []string) []string {
	var out []string
	for _, v := range s {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// bench runs the selected cases on every side and writes the report to
// stdout (and -out). Progress goes to stderr. A failed side or a mismatch
// of the eigenvalues is an error, after the report.
func bench(ctx context.Context, cfg config, stdout, stderr io.Writer) error {
	cases, err := selectCases(allCases(cfg.scale), cfg.methods, cfg.sizes)
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding this program to run its Go children: %w", err)
	}
	h := header{date: time.Now(), cpu: machineCPU(), cores: runtime.NumCPU(), maxProcs: runtime.GOMAXPROCS(0),
		goVersion: runtime.Version(), gonum: gonumVersion(), d: benchD, reps: cfg.reps, warmupUnder: cfg.warmupUnder,
		seed: cfg.seed, tol: cfg.tol, sparseTol: cfg.sparseTol, metricsTol: cfg.metricsTol, cacheDir: cfg.cacheDir}
	var fits, e2es, evals, mlknns, xcs []benchCase
	for _, c := range cases {
		switch c.kind {
		case kindE2E:
			e2es = append(e2es, c)
		case kindEval:
			evals = append(evals, c)
		case kindMLkNN:
			mlknns = append(mlknns, c)
		case kindXC:
			xcs = append(xcs, c)
		default:
			fits = append(fits, c)
		}
	}
	wide := slices.ContainsFunc(cases, func(c benchCase) bool { return c.kind == kindWide })
	h.sklearnSkip = "not run (-python is empty)"
	if cfg.python != "" {
		if err := probeReferences(ctx, cfg, wide, &h); err != nil {
			return err
		}
		if len(evals)+len(mlknns) > 0 {
			probeSklearn(ctx, cfg, &h)
		}
	}
	if len(evals)+len(mlknns) > 0 && h.sklearnSkip != "" {
		fmt.Fprintf(stderr, "benchcmp: numpy + scikit-learn: %s; the eval and mlknn rows run the product's side only\n", h.sklearnSkip)
	}
	h.loadBefore = machineLoad()
	var rows []row
	done := 0
	for _, c := range fits {
		done++
		fmt.Fprintf(stderr, "[%d/%d] %s, %s: ", done, len(cases), c.work, c.text())
		r, err := benchFit(ctx, cfg, self, c, stderr)
		if err != nil {
			return err
		}
		rows = append(rows, r)
	}
	if len(e2es) > 0 {
		fmt.Fprintf(stderr, "[%d-%d/%d] end to end: ", done+1, done+len(e2es), len(cases))
		done += len(e2es)
		r, ups, err := benchE2E(ctx, cfg, self, e2es, wideCase(cfg.scale), stderr)
		if err != nil {
			return fmt.Errorf("the end-to-end rows: %w", err)
		}
		rows, h.uploads = append(rows, r...), ups
	}
	if len(evals) > 0 {
		fmt.Fprintf(stderr, "[%d-%d/%d] evaluation: ", done+1, done+len(evals), len(cases))
		done += len(evals)
		r, err := benchEval(ctx, cfg, casesEvalSets(evals, cfg.datasets), h.sklearnSkip, stderr)
		if err != nil {
			return fmt.Errorf("the evaluation rows: %w", err)
		}
		rows = append(rows, r...)
	}
	for _, c := range mlknns {
		done++
		fmt.Fprintf(stderr, "[%d/%d] ML-kNN, %s: ", done, len(cases), c.text())
		r, err := benchMLkNN(ctx, cfg, self, c, h.sklearnSkip, stderr)
		if err != nil {
			return err
		}
		rows = append(rows, r)
	}
	if len(xcs) > 0 {
		fmt.Fprintf(stderr, "[%d-%d/%d] XC rows (%s ×%g):", done+1, done+len(xcs), len(cases), cfg.xcSet, cfg.scale)
		r, up, err := benchXC(ctx, cfg, xcs, stderr)
		if err != nil {
			return fmt.Errorf("the XC rows: %w", err)
		}
		rows, h.xc = append(rows, r...), &up
	}
	h.loadAfter = machineLoad()
	h.parentKiB = selfPeakKiB()
	if err := writeReport(stdout, h, rows); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	if cfg.out != "" {
		f, err := os.Create(cfg.out)
		if err != nil {
			return fmt.Errorf("writing the report: %w", err)
		}
		if err := writeReport(f, h, rows); err != nil {
			_ = f.Close()
			return fmt.Errorf("writing the report to %s: %w", cfg.out, err)
		}
		if err := f.Close(); err != nil {
			return fmt.Errorf("writing the report to %s: %w", cfg.out, err)
		}
	}
	if p := problems(rows, h); len(p) > 0 {
		for _, s := range p {
			fmt.Fprintln(stderr, "benchcmp:", s)
		}
		return fmt.Errorf("%d problems (failed sides or eigenvalues that disagree); see the report", len(p))
	}
	return nil
}

// probeReferences asks the reference scripts which numpy, BLAS and (for
// the wide rows) scipy they run on, for the header.
func probeReferences(ctx context.Context, cfg config, wide bool, h *header) error {
	if _, err := os.Stat(cfg.script); err != nil {
		return fmt.Errorf("the numpy reference script: %w (run from the repository's root, or give -script)", err)
	}
	info, err := probeNumPy(ctx, cfg.python, cfg.script)
	if err != nil {
		return err
	}
	h.numpy = fmt.Sprintf("%s (Python %s, %s)", info.Numpy, info.Python, cfg.python)
	h.blas = info.BLAS
	if !wide {
		return nil
	}
	sinfo, err := probeNumPy(ctx, cfg.python, scipyScript(cfg.script))
	if err != nil {
		return err
	}
	h.scipy = sinfo.SciPy
	return nil
}

// probeSklearn asks the numpy + scikit-learn script which numpy, scipy and
// scikit-learn it runs on, for the header; when it cannot say (scikit-learn
// missing), h.sklearnSkip says why, and the eval and mlknn rows run
// without that side.
func probeSklearn(ctx context.Context, cfg config, h *header) {
	script := sklearnScript(cfg.script)
	if _, err := os.Stat(script); err != nil {
		h.sklearnSkip = fmt.Sprintf("not run: %v", err)
		return
	}
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, cfg.python, script, "info")
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var info numpyInfo
	if err == nil {
		err = json.Unmarshal(out, &info)
	}
	if err != nil {
		why := err.Error()
		if lines := strings.Split(strings.TrimSpace(stderr.String()), "\n"); lines[len(lines)-1] != "" {
			why += ": " + strings.TrimSpace(lines[len(lines)-1]) // the exception, on the report's line
		}
		h.sklearnSkip = fmt.Sprintf("not run: %s %s info: %s (on Debian: apt-get install python3-sklearn)", cfg.python, script, why)
		return
	}
	h.sklearn = fmt.Sprintf("numpy %s, scipy %s, scikit-learn %s (Python %s, %s)", info.Numpy, info.SciPy, info.Sklearn, info.Python, cfg.python)
	h.sklearnSkip = ""
}

// casesEvalSets are the data sets of the evaluation cases, under dir.
func casesEvalSets(cases []benchCase, dir string) []evalSet {
	var out []evalSet
	for _, s := range evalSets(dir) {
		if slices.ContainsFunc(cases, func(c benchCase) bool { return c.work == s.name }) {
			out = append(out, s)
		}
	}
	return out
}

// scipyScript is the scipy reference, beside the numpy one.
func scipyScript(numpyScript string) string {
	return filepath.Join(filepath.Dir(numpyScript), "scipy_ref.py")
}

// benchFit runs one case of the fit tables: the Go child, numpy, and for a
// wide case scipy's sparse route. It logs each side's median to log.
func benchFit(ctx context.Context, cfg config, self string, c benchCase, log io.Writer) (row, error) {
	files, err := provideData(ctx, self, cfg.cacheDir, c, cfg.seed, log)
	if err != nil {
		return row{}, fmt.Errorf("%s, %s: %w", c.work, c.text(), err)
	}
	t := task{Work: c.work, X: files.X, Y: files.Y, A: files.A, CSR: files.CSR, Classes: files.Classes, D: c.targetD(),
		Reps: cfg.reps, WarmupUnder: cfg.warmupUnder.Seconds(), Top: c.top()}
	if c.work == workEigen {
		t.K = eigenK
	}
	args, err := goChildArgs(t)
	if err != nil {
		return row{}, err
	}
	fmt.Fprint(log, "Go…")
	r := row{work: c.work, size: c.text(), kind: c.kind, goSide: runChild(ctx, self, args...)}
	fmt.Fprintf(log, " %s s; numpy…", formatSeconds(sideMedian(r.goSide)))
	r.np.skipped, r.sp.skipped = true, true
	if cfg.python != "" {
		r.np = runChild(ctx, cfg.python, pythonArgs(cfg.script, t)...)
	}
	fmt.Fprintf(log, " %s s", formatSeconds(sideMedian(r.np)))
	if c.kind == kindWide && cfg.python != "" {
		fmt.Fprint(log, "; scipy…")
		r.sp = runChild(ctx, cfg.python, pythonArgs(scipyScript(cfg.script), t)...)
		fmt.Fprintf(log, " %s s", formatSeconds(sideMedian(r.sp)))
	}
	fmt.Fprintln(log)
	return r, ctx.Err()
}
