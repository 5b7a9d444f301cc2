// Package runcli is webapp run: a job or a study run from the command
// line, without a server, through the code the server's workers run —
// the request's normalisation and validation (memory admission included),
// the data read as an upload is read (store, dataset), and the jobs
// executor — writing the result files a job's page offers into a folder.
package runcli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"mldr/internal/jobs"
	"mldr/internal/store"
	"mldr/internal/views"
)

// Env is what a run is given: where it writes its progress, whether that
// is a terminal (progress bars) or not (a line per phase), the
// environment, the software version and the clock. Its failure is its
// error, which the caller says on standard error.
type Env struct {
	Stdout io.Writer
	// Terminal says Stdout is a terminal: progress is drawn as bars.
	Terminal bool
	Getenv   func(string) string
	// Version is the software version, written into the results.
	Version string
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// DefaultMemory is -max-job-memory's default, in bytes (0: none).
	DefaultMemory int64
}

// options are a run's flags.
type options struct {
	spec        string
	out         string
	dataDir     string
	data, folds pairs
	limits      jobs.Limits
}

// pairs is a repeatable NAME=PATH flag.
type pairs map[string]string

func (p pairs) String() string { return "" }

func (p pairs) Set(v string) error {
	name, path, ok := strings.Cut(v, "=")
	if !ok || name == "" || path == "" {
		return fmt.Errorf("%q is not NAME=FILE", v)
	}
	if _, twice := p[name]; twice {
		return fmt.Errorf("%s is given twice", name)
	}
	p[name] = path
	return nil
}

// Run runs webapp run with args (those after "run"). It returns nil when
// the results are written, or an error whose sentence names what failed
// and where; -help prints the usage on Stdout and returns nil.
func Run(ctx context.Context, args []string, env Env) error {
	if env.Now == nil {
		env.Now = time.Now
	}
	if env.Getenv == nil {
		env.Getenv = func(string) string { return "" }
	}
	o, help, err := parseFlags(args, env)
	if help {
		fmt.Fprint(env.Stdout, usage)
		return nil
	}
	if err != nil {
		return err
	}
	spec, err := ReadSpec(o.spec)
	if err != nil {
		return err
	}
	if err := applyFiles(spec, o); err != nil {
		return err
	}
	out := o.out
	if out == "" {
		out = spec.Name + "-results"
	}
	if err := checkOut(out); err != nil {
		return err
	}
	show := &progress{w: env.Stdout, bar: env.Terminal, now: env.Now}
	defer show.done()
	parent := filepath.Dir(filepath.Clean(out))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return fmt.Errorf("making the output folder's parent %s: %w", parent, err)
	}
	scratchDir, err := os.MkdirTemp(parent, ".webapp-run-")
	if err != nil {
		return fmt.Errorf("making the run's working folder beside %s: %w", out, err)
	}
	defer os.RemoveAll(scratchDir)
	// The run's own data directory: the spec's files as uploads, and the
	// results; never sharded, since a run reads its data sets whole.
	scratch, err := store.Open(store.Config{Dir: scratchDir, ShardSize: -1})
	if err != nil {
		return fmt.Errorf("opening the run's working folder: %w", err)
	}
	defer scratch.Close()
	rs, err := gather(ctx, spec, scratch, o.dataDir, show)
	if err != nil {
		return canceled(ctx, err)
	}
	req := rs.request(spec.Request)
	req.Normalize()
	show.step("check", "the request, its parameters and its memory")
	if err := req.Validate(rs, o.limits); err != nil {
		var re *jobs.RequestError
		if errors.As(err, &re) && re.Field != "" {
			return fmt.Errorf("%s: request.%s: %s", o.spec, re.Field, re.Msg)
		}
		return fmt.Errorf("%s: the request: %w", o.spec, err)
	}
	job := jobs.Job{ID: store.NewID(), Status: jobs.Running, Request: req, CreatedAt: env.Now().UTC()}
	x := jobs.NewExecutorCache(rs, env.Version, 0).WithMemoryLimit(o.limits.MaxJobMemory)
	notes, err := x.Execute(ctx, job, show.report)
	if err != nil {
		return canceled(ctx, fmt.Errorf("running the job: %w", err))
	}
	show.step("write", "the result files to "+out)
	files, err := writeOut(rs.JobDir(job.ID), out, job)
	if err != nil {
		return fmt.Errorf("writing the results to %s: %w", out, err)
	}
	show.done()
	for _, n := range notes {
		fmt.Fprintln(env.Stdout, "note:", n)
	}
	fmt.Fprintf(env.Stdout, "done: %d result files in %s\n", files, out)
	return nil
}

// canceled says a run stopped by its context (Ctrl-C) as such.
func canceled(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("interrupted; nothing was written (%w)", err)
	}
	return err
}

// parseFlags reads the run's flags, which may come before and after the
// spec's path.
func parseFlags(args []string, env Env) (options, bool, error) {
	o := options{data: pairs{}, folds: pairs{}}
	fs := flag.NewFlagSet("webapp run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&o.out, "out", "", "")
	fs.StringVar(&o.dataDir, "data-dir", "", "")
	fs.Var(o.data, "data", "")
	fs.Var(o.folds, "folds", "")
	memory := env.Getenv("MLDR_MAX_JOB_MEMORY")
	fs.StringVar(&memory, "max-job-memory", memory, "")
	var maxCells, maxPairwise int64 = jobs.DefaultMaxCells, jobs.DefaultMaxPairwiseRows
	for _, e := range []struct {
		key string
		dst *int64
	}{{"MLDR_MAX_CELLS", &maxCells}, {"MLDR_MAX_PAIRWISE_ROWS", &maxPairwise}} {
		if v := env.Getenv(e.key); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 1 {
				return o, false, fmt.Errorf("%s must be a positive whole number, not %q", e.key, v)
			}
			*e.dst = n
		}
	}
	fs.Int64Var(&maxCells, "max-cells", maxCells, "")
	fs.Int64Var(&maxPairwise, "max-pairwise-rows", maxPairwise, "")
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return o, true, nil
			}
			return o, false, fmt.Errorf("%v (see webapp run -help)", err)
		}
		if fs.NArg() == 0 {
			break
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
	switch len(positional) {
	case 0:
		return o, false, errors.New("give the spec: webapp run SPEC.json (see webapp run -help)")
	case 1:
		o.spec = positional[0]
	default:
		return o, false, fmt.Errorf("give one spec, not %d (%s); see webapp run -help", len(positional), strings.Join(positional, ", "))
	}
	switch strings.TrimSpace(memory) {
	case "":
		o.limits.MaxJobMemory = env.DefaultMemory
	case "0":
	default:
		n, err := store.ParseBytes(memory)
		if err != nil {
			return o, false, fmt.Errorf("-max-job-memory: %w", err)
		}
		o.limits.MaxJobMemory = n
	}
	if maxCells < 1 || maxPairwise < 1 {
		return o, false, errors.New("-max-cells and -max-pairwise-rows must be positive whole numbers")
	}
	o.limits.MaxCells, o.limits.MaxPairwiseRows = maxCells, int(maxPairwise)
	return o, false, nil
}

// applyFiles puts --data and --folds into the spec's data: NAME is the
// spec's name for a data set (experiment.json: its id) or its display
// name; a name the spec does not have adds an entry, for a request that
// names it.
func applyFiles(spec *Spec, o options) error {
	if spec.Data == nil {
		spec.Data = map[string]Data{}
	}
	for _, flagFiles := range []struct {
		flag  string
		files pairs
		set   func(*Data, string)
	}{
		{"--data", o.data, func(d *Data, p string) { d.File = p }},
		{"--folds", o.folds, func(d *Data, p string) { d.FoldsFile = p }},
	} {
		for name, path := range flagFiles.files {
			key, ok := spec.dataFor(name)
			if !ok {
				if !slices.Contains(spec.Request.DatasetIDs(), name) {
					return fmt.Errorf("%s %s=%s: the spec has no data set %s (%s)", flagFiles.flag, name, path, name, listOr(spec.names()))
				}
				key = name
			}
			d := spec.Data[key]
			flagFiles.set(&d, path)
			spec.Data[key] = d
		}
	}
	return nil
}

// checkOut refuses an output folder that already holds files, so that a
// run never mixes its results with others.
func checkOut(out string) error {
	entries, err := os.ReadDir(out)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("the output folder %s: %w", out, err)
	case len(entries) > 0:
		return fmt.Errorf("the output folder %s already holds files; remove it or give another -out", out)
	}
	return nil
}

// writeOut copies the result files a job's page offers from the job's
// result directory into out (made whole beside it, then renamed): for a
// job metrics.json, label_results.csv, experiment.json and each method's
// files in a folder named after it (projected.csv made from projected.bin
// as its download is); for a study its files. It returns how many files
// it wrote.
func writeOut(dir, out string, job jobs.Job) (int, error) {
	req := job.Request
	out = filepath.Clean(out)
	tmp, err := os.MkdirTemp(filepath.Dir(out), "."+filepath.Base(out)+"-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(tmp)
	top := []string{jobs.FileExperiment, jobs.FileMetrics, jobs.FileLabelResults}
	if req.Study() {
		top = append([]string{jobs.FileExperiment}, jobs.StudyFiles...)
	}
	n := 0
	copyIf := func(rel string) error {
		ok, err := copyFile(filepath.Join(dir, rel), filepath.Join(tmp, rel))
		if ok {
			n++
		}
		return err
	}
	for _, f := range top {
		if err := copyIf(f); err != nil {
			return n, err
		}
	}
	if req.Study() {
		k, err := writeStudyTables(dir, tmp, job)
		n += k
		if err != nil {
			return n, err
		}
	}
	for _, m := range req.ResultMethods() {
		if err := os.Mkdir(filepath.Join(tmp, m), 0o755); err != nil {
			return n, err
		}
		for _, f := range jobs.MethodFiles {
			if f != jobs.FileProjected {
				if err := copyIf(filepath.Join(m, f)); err != nil {
					return n, err
				}
				continue
			}
			bin := filepath.Join(dir, m, jobs.FileProjectedRows)
			if _, err := os.Stat(bin); err != nil {
				continue // mds embeds its fit rows only: no projected rows
			}
			if err := writeFile(filepath.Join(tmp, m, f), func(w io.Writer) error { return jobs.WriteProjectedCSV(w, bin) }); err != nil {
				return n, err
			}
			n++
		}
	}
	if err := os.Remove(out); err != nil && !errors.Is(err, os.ErrNotExist) {
		return n, err // not empty: checkOut said it was
	}
	return n, os.Rename(tmp, out)
}

// writeStudyTables writes a study's tables for papers (views.StudyTableFiles)
// into tmp as their downloads answer without options: the default
// metrics at the first d-choice, from the comparison.json in dir.
func writeStudyTables(dir, tmp string, job jobs.Job) (int, error) {
	f, err := jobs.ReadComparison(filepath.Join(dir, jobs.FileComparison))
	if err != nil {
		return 0, fmt.Errorf("reading the study's comparisons: %w", err)
	}
	t, err := views.StudyPaperTable(job.ID, job.Request, f, views.StudyTableOptions{})
	if err != nil {
		return 0, fmt.Errorf("making the study's tables: %w", err)
	}
	n := 0
	for _, name := range views.StudyTableFiles {
		if err := writeFile(filepath.Join(tmp, name), func(w io.Writer) error { return views.WriteStudyTable(w, name, t) }); err != nil {
			return n, fmt.Errorf("writing %s: %w", name, err)
		}
		n++
	}
	return n, nil
}

// copyFile copies from to to; ok is false, with no error, when from does
// not exist.
func copyFile(from, to string) (ok bool, err error) {
	in, err := os.Open(from)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer in.Close()
	return true, writeFile(to, func(w io.Writer) error {
		_, err := io.Copy(w, in)
		return err
	})
}

// writeFile writes a file with write.
func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
