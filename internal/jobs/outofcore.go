package jobs

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/analysis"
	"mldr/internal/dataset"
	"mldr/internal/evaluate"
	"mldr/internal/preprocess"
	"mldr/internal/store"
)

// Out-of-core jobs. A job whose estimate exceeds the memory
// limit on a data set stored in row shards (store.DatasetRecord.Shards)
// is admitted out of core when every method of it can be fitted from
// sufficient statistics (analysis.Shardable) and it fits on all the rows
// with nothing evaluated: no test data set, no split, no evaluation, no
// preprocessing. Its worker then
//
//  1. forms, for each method, the statistics of one shard at a time
//     (ShardPartial: load the shard, analysis.ShardStats, drop the shard)
//     and merges them (analysis.Partial.Merge);
//  2. fits each method from the merged statistics
//     (analysis.FitFromPartial);
//  3. reads the shards once more, projecting each with every model
//     (analysis.ProjectShard) into the projected rows, and writing the
//     labels the job ran with;
//  4. writes the same result files as an in-memory job.
//
// It holds one shard, the statistics (D×D and the label blocks), the
// models and their projected rows (N × d each), never the whole data
// set. Admission estimates that (estimateOutOfCore) and the executor
// takes the same decision from the same records and limit
// (Executor.WithMemoryLimit), so a job admitted out of core runs out of
// core.

// ShardLoader reads one row shard of a data set at a time
// (store.Files.LoadShard): release ends the use of the shard's memory.
type ShardLoader interface {
	LoadShard(rec store.DatasetRecord, i int) (ds *dataset.Dataset, release func(), err error)
}

// ShardPartial forms the sufficient statistics of row shard i (0-based)
// of the data set rec describes for method id with parameters p: the
// per-shard step of an out-of-core fit, a function of the record, the
// shard, the method and its parameters alone, so that it can run on any
// worker (its result moves as a file: analysis.Partial.WriteTo and
// ReadPartial). The shard is released before it returns. Errors are
// LoadShard's and analysis.ShardStats' (a method that cannot be fitted
// from shards among them); progress (nil: none) is ShardStats'.
func ShardPartial(ctx context.Context, files ShardLoader, rec store.DatasetRecord, i int, id string, p analysis.Params, progress analysis.Progress) (*analysis.Partial, error) {
	ds, release, err := files.LoadShard(rec, i)
	if err != nil {
		return nil, err
	}
	defer release()
	return analysis.ShardStats(ctx, id, p, inputOf(ds), progress)
}

// ShardTask is one piece of an out-of-core run that can run on any
// worker: the statistics of method number Method (0-based, in the
// request's MethodIDs order) on row shard Shard (0-based) of the job's
// data set, for attempt Attempt of the job (Job.Attempts), written as a
// file (PartialStore.WritePartial) that the run of the same attempt reads
// instead of forming them itself.
type ShardTask struct {
	Attempt int `json:"attempt"`
	Method  int `json:"method"`
	Shard   int `json:"shard"`
}

// PartialStore keeps the statistics shard tasks form, by job, attempt,
// method and shard (store.Files). OpenPartial's error wraps
// store.ErrNotFound when there is none.
type PartialStore interface {
	WritePartial(job string, attempt, method, shard int, write func(io.Writer) error) error
	OpenPartial(job string, attempt, method, shard int) (io.ReadCloser, error)
}

// ShardTasks lists the shard tasks of attempt attempt of job when it runs
// out of core under limit bytes (as Executor.WithMemoryLimit decides,
// from the same records): one per method and row shard, methods first.
// It returns none for a job that runs in memory.
func ShardTasks(datasets DatasetLookup, limit int64, job Job, attempt int) ([]ShardTask, error) {
	ooc, rec, err := outOfCorePlan(datasets, limit, job.Request)
	if err != nil || !ooc {
		return nil, err
	}
	var out []ShardTask
	for k := range job.Request.MethodIDs() {
		for s := range store.ShardCount(rec) {
			out = append(out, ShardTask{Attempt: attempt, Method: k, Shard: s})
		}
	}
	return out, nil
}

// executeShardTask forms the statistics of job.Task and writes them for
// the run that solves.
func (x *Executor) executeShardTask(ctx context.Context, job Job, report Report) ([]string, error) {
	t := job.Task
	files, ok := x.store.(ShardLoader)
	partials, ok2 := x.store.(PartialStore)
	if !ok || !ok2 {
		return nil, fmt.Errorf("job %s: this worker cannot read row shards or write partial statistics", job.ID)
	}
	rec, err := x.store.Dataset(job.Request.Dataset)
	if err != nil {
		return nil, fmt.Errorf("data set %s: %w", job.Request.Dataset, err)
	}
	ids := job.Request.MethodIDs()
	if t.Method < 0 || t.Method >= len(ids) || t.Shard < 0 || t.Shard >= store.ShardCount(rec) {
		return nil, fmt.Errorf("job %s has %d methods and its data set %d row shards: there is no method %d, shard %d", job.ID, len(ids), store.ShardCount(rec), t.Method+1, t.Shard+1)
	}
	id := ids[t.Method]
	m, _ := analysis.Lookup(id)
	where := fmt.Sprintf("shard %d of %d", t.Shard+1, store.ShardCount(rec))
	report(0, "fitting "+id, where)
	part, err := ShardPartial(ctx, files, rec, t.Shard, id, job.Request.Params.Only(m.Takes), func(f float64, phase string) {
		report(f, id+": "+phase, where)
	})
	if err != nil {
		return nil, fmt.Errorf("%s, %s: %w", id, where, err)
	}
	err = partials.WritePartial(job.ID, t.Attempt, t.Method, t.Shard, func(w io.Writer) error {
		_, err := part.WriteTo(w)
		return err
	})
	return nil, diskFull(err)
}

// readPartial reads the statistics a shard task of this attempt of job
// formed for method k on shard s; nil when there are none (the run forms
// them itself), and an error when the file is there but unreadable.
func (x *Executor) readPartial(job Job, k, s int, id string, rows int) (*analysis.Partial, error) {
	partials, ok := x.store.(PartialStore)
	if !ok {
		return nil, nil
	}
	r, err := partials.OpenPartial(job.ID, job.Attempts, k, s)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer r.Close()
	part, err := analysis.ReadPartial(bufio.NewReaderSize(r, 1<<16))
	if err != nil {
		return nil, fmt.Errorf("reading the statistics a shard task formed: %w", err)
	}
	if part.Method() != id || part.Rows() != rows {
		return nil, fmt.Errorf("the statistics a shard task formed are of %s on %d rows, not of %s on this shard's %d rows", part.Method(), part.Rows(), id, rows)
	}
	return part, nil
}

// WithMemoryLimit sets the memory a job of the executor may use (0: no
// limit, the default): a job that does not fit in it, on a data set stored
// in row shards, is run out of core when admission would admit it so. It
// returns x.
func (x *Executor) WithMemoryLimit(limit int64) *Executor {
	x.memoryLimit = limit
	return x
}

// outOfCoreBlocker says why req's job cannot run out of core, and the
// request field to blame; "" when it can. The request is normalized;
// multiDim names the classifier as multi-dimensional data know it.
func outOfCoreBlocker(req Request, multiDim bool) (why, field string) {
	switch {
	case req.TestDataset != "":
		return "a test data set is evaluated on in memory; fit without a test data set", "test_dataset"
	case req.Evaluate != nil && req.Evaluate.Classifier != evaluate.ClassifierNone:
		return fmt.Sprintf("the evaluation with %s needs every row in memory; run the job without an evaluation (classifier none, no split)",
			classifierName(req.Evaluate.Classifier, multiDim)), "evaluate"
	case req.Split != nil && req.Split.Kind != SplitNone:
		return fmt.Sprintf("the %s split fits on some of the rows and tests on others in memory; choose no split", req.Split.Kind), "split"
	case req.Preprocess != "" && req.Preprocess != preprocess.None:
		return fmt.Sprintf("preprocess=%s is fitted on the rows in memory; choose preprocess none", req.Preprocess), "preprocess"
	}
	field = "method"
	if len(req.Methods) > 0 {
		field = "methods"
	}
	for _, id := range req.MethodIDs() {
		m, ok := analysis.Lookup(id)
		if !ok {
			return fmt.Sprintf("unknown method %q", id), field
		}
		if err := analysis.Shardable(id, req.Params.Only(m.Takes)); err != nil {
			return strings.TrimPrefix(err.Error(), "analysis: "), field
		}
	}
	return "", ""
}

// admitJob decides how the job of a normalized request runs under limit
// bytes: in memory (outOfCore false, f nil) when its estimate fits,
// out of core (outOfCore true) when it does not but the data set is
// stored in row shards, nothing blocks it (outOfCoreBlocker) and its
// out-of-core estimate fits, else refused (f says why; for a sharded data
// set it also says why the job cannot run out of core, or what it would
// need out of core). suggest is admit's.
func admitJob(req Request, train, test store.DatasetRecord, limit int64, est estimators, suggest bool) (outOfCore bool, f *refusal, err error) {
	f, err = admit(req, train, test, limit, est, suggest)
	if err != nil || f == nil || len(train.Shards) == 0 {
		return false, f, err
	}
	if why, field := outOfCoreBlocker(req, train.Summary.Kind == dataset.MultiDim); why != "" {
		f.extra = fmt.Sprintf("The data set is stored in %d row shards, but this job cannot be fitted out of core, one shard at a time: %s.", len(train.Shards), strings.TrimSuffix(why, "."))
		if field == "method" || field == "methods" || f.field == "dataset" {
			f.field = field
		}
		return false, f, nil
	}
	e, err := estimateOutOfCore(req, train, est)
	if err != nil {
		return false, nil, err
	}
	c := CacheBudget(limit)
	if e.Peak+c <= limit {
		return true, nil, nil
	}
	largest := 0
	for _, s := range train.Shards {
		largest = max(largest, s.Rows)
	}
	return false, &refusal{field: "dataset", subject: fmt.Sprintf("Even out of core, one of its %d row shards at a time, this job", len(train.Shards)),
		need: e.Peak + c, what: fmt.Sprintf("the largest shard holds %s rows; the statistics and the models of %s rows × %s features", group(largest), group(train.Summary.Rows), group(train.Summary.Features)),
		limit: limit, hint: "Choose fewer features or methods, a smaller d, or upload the data with a smaller -shard-size."}, nil
}

// estimateOutOfCore is what an out-of-core job of req on train holds at
// its peak (the cache budget of admit aside): the overhead, the largest
// shard as loaded and the rows' bookkeeping (Data), and for each method
// in turn the larger of its statistics pass (analysis.EstimateShardMemory
// on the largest shard, with the merged statistics beside it) and its
// solve from them (the statistics and analysis.EstimateMemory's solve in
// D dimensions), with its model (its directions and the N × d projected
// rows)
// and the writing of its files, the earlier methods' models kept.
func estimateOutOfCore(req Request, train store.DatasetRecord, est estimators) (Estimate, error) {
	sh := shapeOfJob(req, train, store.DatasetRecord{})
	n, q := int64(sh.train), int64(sh.q)
	e := Estimate{Overhead: JobOverhead}
	var shard analysis.Shape
	for _, s := range train.Shards {
		b := sh.featureBytes(sh.trainSparse, s.Rows, s.NonZeros) + 8*q*int64(s.Rows)
		if b > e.Data || shard.N == 0 {
			e.Data = b
			shard = analysis.Shape{N: s.Rows, D: sh.d, Q: sh.q, Classes: sh.classes, LabelSets: min(sh.sets, s.Rows), LabelOnes: min(sh.ones, s.Rows*sh.q)}
			if sh.trainSparse {
				shard.NNZ = max(1, s.NonZeros)
			}
		}
	}
	e.Data += 2*nameBytes*int64(sh.d+sh.q) + 24*n + 8*n*2 // names; the rows' parts, numbers and order
	if sh.classes != nil {
		e.Data += 4 * n * q // the labels the job ran with, encoded
	} else {
		e.Data += n + 2*int64(max(sh.ones, sh.train*sh.q/4))
	}
	full := sh.fitShape()
	solve := full
	solve.N, solve.NNZ = sh.d+sh.q+1, 0 // the D×D path, no rows
	solve.LabelSets, solve.LabelOnes = min(sh.sets, solve.N), min(sh.ones, solve.N*sh.q)
	for _, id := range req.MethodIDs() {
		m, ok := analysis.Lookup(id)
		if !ok {
			return e, fmt.Errorf("estimating the memory of method %q: unknown method", id)
		}
		p := req.Params.Only(m.Takes)
		stats, size, err := analysis.EstimateShardMemory(id, p, shard)
		if err != nil {
			return e, fmt.Errorf("estimating the memory of %s out of core: %w", id, err)
		}
		fit, err := est.fit(id, p, solve)
		if err != nil {
			return e, fmt.Errorf("estimating the memory of %s out of core: %w", id, err)
		}
		cols, _ := dims(m, p, full)
		if p.D > 0 {
			cols = min(cols, p.D)
		}
		// Writing, and before it a shard's projected rows (label-space
		// methods code the shard's labels first).
		// The model: its directions (modelBytes' D × the most it keeps)
		// and the projected rows this job holds, N × d.
		basis, rows := dims(m, p, full)
		model := 8 * (int64(rows)*int64(basis) + int64(sh.train)*int64(cols) + 2*int64(sh.d+sh.q))
		me := MethodEstimate{ID: id, Fit: max(stats+size, size+fit), Model: model,
			Write: writeBytes(m, p, full, sh.train, false) + 8*int64(shard.N)*int64(cols+sh.q), Kept: e.Kept}
		e.Methods = append(e.Methods, me)
		e.Kept += me.Model
	}
	phase := int64(0)
	for _, m := range e.Methods {
		phase = max(phase, m.Phase())
	}
	e.Peak = e.Overhead + e.Data + phase
	return e, nil
}

// outOfCore says whether the executor runs req's job out of core: under
// its memory limit, on a data set stored in row shards, when admission
// would admit it so. It returns the training set's record.
func (x *Executor) outOfCore(req Request) (bool, store.DatasetRecord, error) {
	if _, ok := x.store.(ShardLoader); !ok {
		return false, store.DatasetRecord{}, nil
	}
	return outOfCorePlan(x.store, x.memoryLimit, req)
}

// outOfCorePlan says whether req's job runs out of core under limit
// bytes (0: no limit, never): on a data set stored in row shards, when
// admission would admit it so. It returns the training set's record.
func outOfCorePlan(datasets DatasetLookup, limit int64, req Request) (bool, store.DatasetRecord, error) {
	var train store.DatasetRecord
	if limit <= 0 || req.Study() {
		return false, train, nil
	}
	train, err := datasets.Dataset(req.Dataset)
	if err != nil {
		return false, train, fmt.Errorf("data set %s: %w", req.Dataset, err)
	}
	if len(train.Shards) == 0 {
		return false, train, nil
	}
	var test store.DatasetRecord
	if req.TestDataset != "" {
		if test, err = datasets.Dataset(req.TestDataset); err != nil {
			return false, train, fmt.Errorf("data set %s: %w", req.TestDataset, err)
		}
	}
	ooc, _, err := admitJob(req, train, test, limit, realEstimators(), false)
	return ooc, train, err
}

// executeOutOfCore runs job on rec's shards one at a time (see above);
// the results are those of execute, in the same files.
func (x *Executor) executeOutOfCore(ctx context.Context, job Job, rec store.DatasetRecord, report Report) ([]string, error) {
	files := x.store.(ShardLoader)
	req := job.Request
	shards := store.ShardCount(rec)
	notes := []string{fmt.Sprintf("fitted out of core, one of the data set's %d row shards at a time: in memory the job would not fit in the %s a job may use (the -max-job-memory limit)",
		shards, store.FormatBytes(x.memoryLimit))}
	staged, err := x.store.StageJobResults(job.ID)
	if err != nil {
		return nil, diskFull(err)
	}
	defer staged.Discard()
	ids := req.MethodIDs()
	formed := 0 // the statistics shard tasks formed, read here
	// Progress: the statistics passes to 0.75, the projection to 0.9.
	models := make([]*analysis.Model, len(ids))
	for k, id := range ids {
		m, _ := analysis.Lookup(id)
		params := req.Params.Only(m.Takes)
		var total *analysis.Partial
		for s := range shards {
			from := 0.05 + 0.7*(float64(k)+float64(s)/float64(shards+1))/float64(len(ids))
			to := 0.05 + 0.7*(float64(k)+float64(s+1)/float64(shards+1))/float64(len(ids))
			where := fmt.Sprintf("shard %d of %d", s+1, shards)
			report(from, "fitting "+id, where)
			part, err := x.readPartial(job, k, s, id, shardRows(rec, s))
			if err != nil {
				return notes, fmt.Errorf("%s, %s: %w", id, where, err)
			}
			if part != nil {
				formed++
			} else if part, err = ShardPartial(ctx, files, rec, s, id, params, func(f float64, phase string) {
				report(from+(to-from)*f, id+": "+phase, where)
			}); err != nil {
				return notes, fmt.Errorf("%s, %s: %w", id, where, err)
			}
			if total == nil {
				total = part
			} else if err := total.Merge(part); err != nil {
				return notes, fmt.Errorf("%s, %s: %w", id, where, err)
			}
		}
		from := 0.05 + 0.7*(float64(k)+float64(shards)/float64(shards+1))/float64(len(ids))
		to := 0.05 + 0.7*float64(k+1)/float64(len(ids))
		report(from, "fitting "+id, "from the statistics of every shard")
		model, err := analysis.FitFromPartial(ctx, id, params, total, func(f float64, phase string) {
			report(from+(to-from)*f, id+": "+phase, "")
		})
		if err != nil {
			return notes, fmt.Errorf("%s: %w", id, err)
		}
		models[k] = model
		notes = append(notes, methodNotes(id, model.Notes)...)
	}
	if formed > 0 {
		notes = append(notes, fmt.Sprintf("%d of the %d statistics passes (one per method and row shard) were formed by shard tasks on the workers of the shared queue", formed, len(ids)*shards))
	}
	p, projected, labels, err := x.projectShards(ctx, files, rec, models, report)
	if err != nil {
		return notes, err
	}
	if err := staged.WriteFile(FileLabels, labels); err != nil {
		return notes, diskFull(err)
	}
	for k, id := range ids {
		report(0.9+0.06*float64(k)/float64(len(ids)), "writing "+id, "")
		if err := x.writeMethod(staged, id, job, models[k], p, projected[k]); err != nil {
			return notes, diskFull(err)
		}
		projected[k] = nil
	}
	if err := ctx.Err(); err != nil {
		return notes, err
	}
	report(0.96, "saving", "writing the results")
	if err := x.writeExperiment(staged, job); err != nil {
		return notes, err
	}
	return notes, diskFull(x.store.CommitJobResults(staged))
}

// projectShards reads rec's shards once more and projects each with every
// model: it returns the plan the files are written with (every row in
// part "all", in order; the data set's names without its matrices), each
// model's projected rows, and what writes FileLabels (the labels of every
// row, encoded as the shards go by).
func (x *Executor) projectShards(ctx context.Context, files ShardLoader, rec store.DatasetRecord, models []*analysis.Model, report Report) (*plan, []*mat.Dense, func(io.Writer) error, error) {
	shards := store.ShardCount(rec)
	n := 0
	for _, s := range rec.Shards {
		n += s.Rows
	}
	projected := make([]*mat.Dense, len(models))
	var names *dataset.Dataset
	var head runLabelsHeader
	var body bytes.Buffer
	bw := bufio.NewWriter(&body)
	row := 0
	for s := range shards {
		report(0.75+0.15*float64(s)/float64(shards), "projecting the rows", fmt.Sprintf("shard %d of %d", s+1, shards))
		ds, release, err := files.LoadShard(rec, s)
		if err != nil {
			return nil, nil, nil, err
		}
		err = func() error {
			defer release()
			ns := ds.Rows()
			if row+ns > n {
				return fmt.Errorf("the shards of data set %s hold more than the %d rows their record lists", rec.ID, n)
			}
			if names == nil {
				c := *ds
				c.X, c.Sparse, c.Y, c.YSparse = nil, nil, nil, nil
				names = &c
				head = newRunLabelsHeader(names, n, 0, rec.Gen, names)
			}
			in := inputOf(ds)
			for k, m := range models {
				z, err := analysis.ProjectShard(ctx, m, in)
				if err != nil {
					return fmt.Errorf("%s, shard %d of %d: %w", m.Method, s+1, shards, err)
				}
				_, d := z.Dims()
				if projected[k] == nil {
					projected[k] = mat.NewDense(n, d, nil)
				}
				projected[k].Slice(row, row+ns, 0, d).(*mat.Dense).Copy(z)
			}
			ones, err := writeLabelRows(bw, ds, head)
			head.Ones += ones
			row += ns
			return err
		}()
		if err != nil {
			return nil, nil, nil, err
		}
	}
	if row != n {
		return nil, nil, nil, fmt.Errorf("the shards of data set %s hold %d rows, their record lists %d", rec.ID, row, n)
	}
	if err := bw.Flush(); err != nil {
		return nil, nil, nil, err
	}
	hb, err := json.Marshal(head)
	if err != nil {
		return nil, nil, nil, err
	}
	labels := func(w io.Writer) error {
		if _, err := w.Write(append(hb, '\n')); err != nil {
			return err
		}
		_, err := body.WriteTo(w)
		return err
	}
	p := &plan{train: names, trainRec: rec, fitRows: seq(0, n), fitKey: "all", rowSplit: make([]string, n), rowNumber: make([]int, n)}
	for i := range n {
		p.rowSplit[i], p.rowNumber[i] = PartAll, i+1
	}
	return p, projected, labels, nil
}

// shardRows is the number of rows of row shard s of rec (all of them for
// a data set in one file).
func shardRows(rec store.DatasetRecord, s int) int {
	if len(rec.Shards) == 0 {
		return rec.Summary.Rows
	}
	return rec.Shards[s].Rows
}
