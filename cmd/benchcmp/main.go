// Command benchcmp times the product's reductions against numpy on
// OpenBLAS, side by side, on the same seeded data, and prints a Markdown
// table: each side's median time and peak memory, their ratio, and how
// closely their leading eigenvalues agree.
//
//	go run ./cmd/benchcmp [-methods pca,mddmp] [-sizes 100k,20k,eigen] [-reps 3] [-out FILE]
//
// The data (100 000×1 000 features with 100 labels or 10 class variables,
// 20 000×2 000 with 100 labels, a 2 000×2 000 positive semi-definite
// matrix) are generated once into a cache directory as .npy files. Each
// measurement runs in a child process: this command re-executed with a
// hidden flag for the Go side, which times analysis.Fit (the code path of
// the jobs), and scripts/bench/numpy_ref.py under /usr/bin/python3 for the
// numpy side, which times the same algebra written as a numpy user would.
// The parent reads each child's peak resident memory from wait4.
//
// docs/BENCHMARKS.md says what is measured, how, and the latest results.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
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
	// benchD is the target dimension d given to every method.
	benchD = 10
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
	fs.StringVar(&methods, "methods", "all", "comma-separated works to run: mddmp, sdem, cplst, pca, mvmd, mlsi, cca, mddmf, eigen, or all")
	fs.StringVar(&sizes, "sizes", "all", "comma-separated sizes to run: 100k (N=100000, D=1000, q=100), 20k (N=20000, D=2000, q=100), eigen (2000×2000), or all")
	fs.IntVar(&c.reps, "reps", 3, "timed runs per work and side; the table gives their median")
	fs.DurationVar(&c.warmupUnder, "warmup-under", 5*time.Second, "a first run shorter than this is an untimed warm-up; a longer one is the first timed run")
	fs.StringVar(&c.cacheDir, "cache", filepath.Join(os.TempDir(), "mldr-benchcmp"), "directory of the generated .npy data, reused when present (about 1.3 GB)")
	fs.StringVar(&c.out, "out", "", "also write the report to this file")
	fs.StringVar(&c.python, "python", "/usr/bin/python3", "Python with numpy for the reference side; empty runs the Go side only")
	fs.StringVar(&c.script, "script", filepath.Join("scripts", "bench", "numpy_ref.py"), "the numpy reference script")
	fs.Uint64Var(&c.seed, "seed", 1, "seed of the generated data")
	fs.Float64Var(&c.scale, "scale", 1, "multiply every N by this (0.05 gives a quick check of the machinery; the eigen matrix keeps its size)")
	fs.Float64Var(&c.tol, "tol", 1e-6, "relative difference of the leading eigenvalues from which a row is a mismatch")
	fs.StringVar(&c.child, childFlag, "", "internal: run as the Go child of this task (JSON)")
	fs.StringVar(&c.generate, generateFlag, "", "internal: generate the data of this case (JSON)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: go run ./cmd/benchcmp [flags]\n\n"+
			"Times the methods of internal/analysis against numpy on OpenBLAS, each in a child\n"+
			"process, on the same seeded data, and prints a Markdown table (see docs/BENCHMARKS.md).\n"+
			"Every method gets d = %d and its defaults otherwise. A mismatch of the eigenvalues or a\n"+
			"failed side makes the exit status 1.\n\nFlags:\n", benchD)
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
	}
	c.methods, c.sizes = splitList(methods), splitList(sizes)
	return c, nil
}

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
	name    string // as -sizes names it
	n, d, q int    // rows, features (the eigen matrix is d×d), labels
}

// benchCase is one row of the table: a work on a size.
type benchCase struct {
	work     string // a method id of package analysis, or workEigen
	size     dataSize
	multiDim bool // class variables instead of 0/1 labels (sdem)
}

// text describes the case's data for the size column.
func (c benchCase) text() string {
	s := c.size
	switch {
	case c.work == workEigen:
		return fmt.Sprintf("%d×%d, top %d", s.d, s.d, eigenK)
	case c.multiDim:
		return fmt.Sprintf("%d×%d, %d×%d classes", s.n, s.d, classVars, classCount)
	}
	return fmt.Sprintf("%d×%d, q = %d", s.n, s.d, s.q)
}

// allCases lists every row of the table, in order, with every N
// multiplied by scale.
func allCases(scale float64) []benchCase {
	rows := func(n int) int { return max(200, int(math.Round(float64(n)*scale))) }
	big := dataSize{name: "100k", n: rows(100_000), d: 1_000, q: 100}
	wide := dataSize{name: "20k", n: rows(20_000), d: 2_000, q: 100}
	var cs []benchCase
	for _, m := range []string{"mddmp", "sdem", "cplst", "pca", "mvmd", "mlsi", "cca", "mddmf"} {
		cs = append(cs, benchCase{work: m, size: big, multiDim: m == "sdem"})
	}
	for _, m := range []string{"pca", "mddmp", "cplst", "mvmd"} {
		cs = append(cs, benchCase{work: m, size: wide})
	}
	return append(cs, benchCase{work: workEigen, size: dataSize{name: "eigen", d: 2_000}})
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
		return nil, errors.New("no work of -methods is run at the -sizes chosen")
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

// bench runs the selected cases on both sides and writes the report to
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
		seed: cfg.seed, tol: cfg.tol, cacheDir: cfg.cacheDir}
	if cfg.python != "" {
		if _, err := os.Stat(cfg.script); err != nil {
			return fmt.Errorf("the numpy reference script: %w (run from the repository's root, or give -script)", err)
		}
		info, err := probeNumPy(ctx, cfg.python, cfg.script)
		if err != nil {
			return err
		}
		h.numpy = fmt.Sprintf("%s (Python %s, %s)", info.Numpy, info.Python, cfg.python)
		h.blas = info.BLAS
	}
	h.loadBefore = machineLoad()
	var rows []row
	for i, c := range cases {
		files, err := provideData(ctx, self, cfg.cacheDir, c, cfg.seed, stderr)
		if err != nil {
			return fmt.Errorf("%s, %s: %w", c.work, c.text(), err)
		}
		t := task{Work: c.work, X: files.X, Y: files.Y, A: files.A, Classes: files.Classes, D: benchD,
			Reps: cfg.reps, WarmupUnder: cfg.warmupUnder.Seconds(), Top: agreeTop}
		if c.work == workEigen {
			t.K, t.Top = eigenK, eigenK
		}
		fmt.Fprintf(stderr, "[%d/%d] %s, %s: Go…", i+1, len(cases), c.work, c.text())
		args, err := goChildArgs(t)
		if err != nil {
			return err
		}
		r := row{work: c.work, size: c.text(), goSide: runChild(ctx, self, args...)}
		fmt.Fprintf(stderr, " %s s; numpy…", formatSeconds(sideMedian(r.goSide)))
		if cfg.python != "" {
			r.np = runChild(ctx, cfg.python, pythonArgs(cfg.script, t)...)
		} else {
			r.np.skipped = true
		}
		fmt.Fprintf(stderr, " %s s\n", formatSeconds(sideMedian(r.np)))
		if err := ctx.Err(); err != nil {
			return err
		}
		rows = append(rows, r)
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
	if p := problems(rows, cfg.tol); len(p) > 0 {
		for _, s := range p {
			fmt.Fprintln(stderr, "benchcmp:", s)
		}
		return fmt.Errorf("%d problems (failed sides or eigenvalues that disagree); see the report", len(p))
	}
	return nil
}
