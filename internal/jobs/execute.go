package jobs

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/analysis"
	"mldr/internal/dataset"
	"mldr/internal/evaluate"
	"mldr/internal/export"
	"mldr/internal/preprocess"
	"mldr/internal/store"
)

// Store is what the executor needs of the storage.
type Store interface {
	DatasetLookup
	LoadDataset(id string) (*dataset.Dataset, error)
	LoadFolds(id string) ([]dataset.Fold, error)
	StageJobResults(id string) (*store.StagedResults, error)
	CommitJobResults(staged *store.StagedResults) error
	RemoveJobResults(id string) error
	JobDir(id string) string
	// PublicError is err with the data directory's paths made relative,
	// for users to see (store.Store.PublicError).
	PublicError(err error) error
}

// Executor runs job requests: it is the runner's Executor.
type Executor struct {
	store   Store
	version string
	cache   *fitCache
	// memoryLimit is what a job may use (WithMemoryLimit; 0: no limit):
	// beyond it, a job on a data set in row shards runs out of core.
	memoryLimit int64
}

// NewExecutor returns an executor over st; version goes into manifests.
// Its cache of decompositions keeps at most DefaultCacheBytes of them.
func NewExecutor(st Store, version string) *Executor {
	return NewExecutorCache(st, version, DefaultCacheBytes)
}

// DefaultCacheBytes bounds the decompositions an executor keeps.
const DefaultCacheBytes = 256 << 20

// NewExecutorCache returns an executor whose cache of decompositions
// keeps at most cacheBytes of them (0: none). A worker process gives it a
// small part of its memory limit.
func NewExecutorCache(st Store, version string, cacheBytes int64) *Executor {
	return &Executor{store: st, version: version, cache: newFitCache(32, cacheBytes)}
}

// Result file names. With several methods each method's files are in a
// directory named after it; metrics.json covers them all.
const (
	FileProjectionCSV  = "projection.csv"
	FileProjectionJSON = "projection.json"
	FileProjectionNPY  = "projection.npy"
	FileEigenvalues    = "eigenvalues.json"
	FileProjected      = "projected.csv"
	FileModel          = "model.json"
	FileMetrics        = "metrics.json"
)

// MethodFiles lists the files of each method that can be downloaded, in
// its directory. A job writes FileProjectedRows in place of
// FileProjected, which is derived from it at its first download.
var MethodFiles = []string{FileProjectionCSV, FileProjectionJSON, FileProjectionNPY, FileEigenvalues, FileProjected, FileModel}

// The parts a projected row belongs to (projected.csv's split column).
const (
	PartTrain = "train" // fitted on, evaluated on the rest
	PartTest  = "test"  // held out, or the rows of the test data set
	PartAll   = "all"   // cross-validation: every row, fitted on all of them
)

// plan is what a job reads and fits on.
type plan struct {
	train, test *dataset.Dataset
	trainRec    store.DatasetRecord
	data        analysis.Input // training rows, then a test set's rows
	splits      []evaluate.Split
	fitRows     []int    // rows the result models are fitted on
	rowSplit    []string // per row of data: train, test or all
	rowNumber   []int    // per row of data: its 1-based row in its data set
	rowFold     []int    // k-fold and predefined folds: per row the 1-based fold it is tested in (0: none)
	fitKey      string   // what identifies the fit rows, for the cache
	// scaler is the preprocessing fitted on the fit rows, and fitData the
	// data it scaled: what the result models are fitted on and project
	// (data itself when the preprocessing is none). See preprocessPlan.
	scaler  *preprocess.Scaler
	fitData analysis.Input
}

// Execute does a job: the result models are fitted (on the training rows
// of a holdout or test set, else on all rows) and written, then the
// evaluation runs. Files are written through the store to a staging
// directory and moved into place, with their checksums, only when all are
// complete; on any error (a full disk among them: the error then says so
// and wraps syscall.ENOSPC) nothing of them is left. The error names files
// relative to the data directory (store.PublicError): it is the failed
// job's error that users see.
func (x *Executor) Execute(ctx context.Context, job Job, report Report) ([]string, error) {
	notes, err := x.execute(ctx, job, report)
	return notes, x.store.PublicError(err)
}

func (x *Executor) execute(ctx context.Context, job Job, report Report) ([]string, error) {
	req := job.Request
	if job.Task != nil {
		return x.executeShardTask(ctx, job, report) // outofcore.go
	}
	if req.Study() {
		return x.executeStudy(ctx, job, report)
	}
	report(0.01, "loading", "reading the data")
	if err := x.store.RemoveJobResults(job.ID); err != nil { // a run a crash interrupted
		return nil, err
	}
	if ooc, rec, err := x.outOfCore(req); err != nil {
		return nil, err
	} else if ooc {
		return x.executeOutOfCore(ctx, job, rec, report) // outofcore.go
	}
	p, err := x.plan(req)
	if err != nil {
		return nil, err
	}
	if err := p.preprocessPlan(req.Preprocess); err != nil {
		return nil, err
	}
	staged, err := x.store.StageJobResults(job.ID)
	if err != nil {
		return nil, diskFull(err)
	}
	defer staged.Discard() // nothing left once committed
	// The labels the plots are coloured by, whatever the data set becomes.
	if err := writeRunLabels(staged, p); err != nil {
		return nil, diskFull(err)
	}
	var notes []string
	if p.scaler != nil && p.scaler.Note != "" {
		notes = append(notes, "result models: "+p.scaler.Note)
	}
	ids := req.MethodIDs()
	evalShare := 0.0
	if req.Evaluate != nil && req.Evaluate.Classifier != evaluate.ClassifierNone {
		evalShare = 0.6
	}
	fitSpan := (0.95 - 0.05) * (1 - evalShare)
	// The result fits share what does not depend on the method
	// (analysis.Shared), which the loop holds until its last fit.
	fitRows := subset(p.fitInput(), p.fitRows).WithShared(analysis.NewShared())
	// With one split whose training part is the fit rows (a test data
	// set, a holdout), the evaluation takes the result models rather than
	// fitting them again (evaluate.Spec.Fitted).
	var fitted map[string]evaluate.Fitted
	if evalShare > 0 && len(p.splits) == 1 && slices.Equal(p.splits[0].Train, p.fitRows) {
		fitted = map[string]evaluate.Fitted{}
	}
	for i, id := range ids {
		from := 0.05 + fitSpan*float64(i)/float64(len(ids))
		to := 0.05 + fitSpan*float64(i+1)/float64(len(ids))
		report(from, "fitting "+id, "")
		began := time.Now()
		m, note, err := x.fit(ctx, job, id, fitRows, p, func(f float64, phase string) {
			report(from+(to-from)*f, id+": "+phase, "")
		})
		if err != nil {
			return notes, fmt.Errorf("%s: %w", id, err)
		}
		if desc, _ := analysis.Lookup(id); fitted != nil && !desc.Transductive { // mds: evaluated on both parts together
			fitted[id] = evaluate.Fitted{Model: m, Params: job.Request.Params.Only(desc.Takes), Seconds: time.Since(began).Seconds()}
		}
		if note != "" {
			notes = append(notes, note)
		}
		notes = append(notes, methodNotes(id, m.Notes)...)
		// Projecting the rows is algebra: it belongs to the fit's phase.
		report(to, id+": projecting the rows", "")
		projected, err := projectedRows(m, p)
		if err != nil {
			return notes, fmt.Errorf("%s: %w", id, err)
		}
		report(to, "writing "+id, "")
		if err := x.writeMethod(staged, id, job, m, p, projected); err != nil {
			return notes, diskFull(err)
		}
	}
	if evalShare > 0 {
		spec := evaluationSpec(req)
		spec.RowErrors = true // FileRowErrors, for the explorer, and FileLabelResults
		spec.Fitted = fitted
		start := 0.05 + fitSpan
		res, err := evaluate.Run(ctx, p.data, p.splits, spec, func(f float64, phase string) {
			report(start+(0.95-start)*f, "evaluating", phase)
		})
		if err != nil {
			return notes, fmt.Errorf("evaluation: %w", err)
		}
		notes = append(notes, res.Notes...)
		mf := metricsFile(spec.Options, *req.Split, res)
		mf.Version = x.version
		mf.EvaluatedOn = evaluatedOn(req, p, "")
		if p.test != nil {
			rec, err := x.store.Dataset(req.TestDataset)
			if err != nil {
				return notes, err
			}
			mf.TestDataset = &ManifestDataset{ID: rec.ID, Name: rec.Name, SHA256: rec.SHA256, Rows: rec.Summary.Rows}
			mf.EvaluatedOn = evaluatedOn(req, p, rec.Name)
		}
		if err := writeJSON(staged, FileMetrics, mf); err != nil {
			return notes, diskFull(err)
		}
		if err := writeRowErrors(staged, p, res.RowErrors); err != nil {
			return notes, diskFull(err)
		}
		if err := writeLabelResults(staged, p, res.RowErrors); err != nil {
			return notes, diskFull(err)
		}
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

// diskFull says plainly that the disk is full when err comes from one
// (syscall.ENOSPC), keeping err wrapped.
func diskFull(err error) error {
	if errors.Is(err, syscall.ENOSPC) {
		return fmt.Errorf("the disk of the data directory is full, so the results were not stored: %w", err)
	}
	return err
}

// plan loads the data and chooses the splits.
func (x *Executor) plan(req Request) (*plan, error) {
	rec, err := x.store.Dataset(req.Dataset)
	if err != nil {
		return nil, fmt.Errorf("data set %s: %w", req.Dataset, err)
	}
	train, err := x.store.LoadDataset(req.Dataset)
	if err != nil {
		return nil, err
	}
	p := &plan{train: train, trainRec: rec, data: inputOf(train)}
	n := train.Rows()
	all := func(split string) {
		p.fitRows = seq(0, n)
		for i := range n {
			p.rowSplit = append(p.rowSplit, split)
			p.rowNumber = append(p.rowNumber, i+1)
		}
	}
	s := req.Split
	switch {
	case req.TestDataset != "":
		test, err := x.store.LoadDataset(req.TestDataset)
		if err != nil {
			return nil, err
		}
		testRec, _ := x.store.Dataset(req.TestDataset)
		p.test = test
		p.data = stackInputs(p.data, inputOf(test))
		p.splits = []evaluate.Split{evaluate.TrainTest(n, test.Rows())}
		all(PartTrain)
		for i := range test.Rows() {
			p.rowSplit = append(p.rowSplit, PartTest)
			p.rowNumber = append(p.rowNumber, i+1)
		}
		p.fitKey = "train of test set " + testRec.SHA256
	case s.Kind == SplitHoldout:
		h, err := evaluate.Holdout(n, s.TestFraction, s.Seed)
		if err != nil {
			return nil, err
		}
		p.splits = []evaluate.Split{h}
		p.fitRows = h.Train
		p.rowSplit = make([]string, n)
		p.rowNumber = make([]int, n)
		for _, i := range h.Train {
			p.rowSplit[i] = PartTrain
		}
		for _, i := range h.Test {
			p.rowSplit[i] = PartTest
		}
		for i := range n {
			p.rowNumber[i] = i + 1
		}
		p.fitKey = fmt.Sprintf("holdout %v seed %d", s.TestFraction, s.Seed)
	default:
		all(PartAll)
		p.fitKey = "all"
		switch s.Kind {
		case SplitKFold:
			if p.splits, err = evaluate.KFold(n, s.Folds, s.Seed); err != nil {
				return nil, err
			}
		case SplitPredefined:
			folds, err := x.store.LoadFolds(req.Dataset)
			if err != nil {
				return nil, err
			}
			for i, f := range folds {
				p.splits = append(p.splits, evaluate.Split{Name: fmt.Sprintf("fold %d", i+1), Train: f.Train, Test: f.Test})
			}
		}
		if len(p.splits) > 0 {
			p.rowFold = make([]int, n)
			for f, sp := range p.splits {
				for _, i := range sp.Test {
					if p.rowFold[i] == 0 {
						p.rowFold[i] = f + 1
					}
				}
			}
		}
	}
	return p, nil
}

// fit returns the method's model on the fit rows, from the cache when the
// same decomposition was made before.
func (x *Executor) fit(ctx context.Context, job Job, id string, in analysis.Input, p *plan, progress analysis.Progress) (*analysis.Model, string, error) {
	m, _ := analysis.Lookup(id)
	params := job.Request.Params.Only(m.Takes)
	base := params
	base.D, base.Thr = 0, 0
	keyJSON, _ := json.Marshal(base)
	key := fmt.Sprintf("%s gen %d | %s | %s | %s | preprocess %s", p.trainRec.SHA256, p.trainRec.Gen, p.fitKey, id, keyJSON, cmp.Or(job.Request.Preprocess, preprocess.None))
	if cached, from, ok := x.cache.get(key); ok {
		if model, err := cached.Choose(params); err == nil {
			return model, fmt.Sprintf("%s reused the decomposition fitted by job %s (same data, method and parameters)", id, from), nil
		}
	}
	model, err := analysis.Fit(ctx, id, in, params, progress)
	if err != nil {
		return nil, "", err
	}
	if len(model.Blocks) == 0 {
		x.cache.put(key, model, job.ID)
	}
	return model, "", nil
}

// writeMethod writes a method's result files into its directory of the
// staged results; projected are its projected rows (projectedRows).
func (x *Executor) writeMethod(staged *store.StagedResults, method string, job Job, m *analysis.Model, p *plan, projected *mat.Dense) error {
	dir := func(file string) string { return method + "/" + file }
	rowNames := p.train.Features.Strings()
	if m.Space == analysis.LabelSpace {
		rowNames = p.train.Labels.Strings()
	}
	if m.Kernel != nil { // the dual coefficients: one row per basis row
		rowNames = make([]string, len(m.Kernel.Index))
		for i, r := range kernelRowNumbers(m, p) {
			rowNames[i] = fmt.Sprintf("row %d", r)
		}
	}
	proj := m.P()
	if proj != nil {
		if err := staged.WriteFile(dir(FileProjectionCSV), func(w io.Writer) error {
			return export.WriteMatrixCSV(w, rowNames, export.ComponentNames(m.Dim), "name", proj)
		}); err != nil {
			return err
		}
		if err := staged.WriteFile(dir(FileProjectionNPY), func(w io.Writer) error { return export.WriteNPY(w, proj) }); err != nil {
			return err
		}
		if err := writeJSONMatrix(staged, dir(FileProjectionJSON), projectionFile{Rows: rowNames, Columns: export.ComponentNames(m.Dim)}, "matrix", proj); err != nil {
			return err
		}
	}
	if err := writeJSON(staged, dir(FileEigenvalues), EigenFile{Eigenvalues: m.Eigenvalues, D: m.Dim, Energy: m.Energy, Rank: m.Rank, RankOf: m.RankOf,
		Order: m.Order, Total: m.Total, RankAtLeast: m.RankAtLeast, Residuals: m.Residuals, Stress: m.Stress}); err != nil {
		return err
	}
	if err := staged.WriteFile(dir(FileProjectedRows), func(w io.Writer) error { return writeProjectedRows(w, p, projected, m.Dim) }); err != nil {
		return err
	}
	mf := x.manifest(job, m, p, rowNames)
	if proj == nil {
		return writeJSON(staged, dir(FileModel), mf)
	}
	return writeJSONMatrix(staged, dir(FileModel), mf, "projection", proj)
}

// projectedRows are the reduced rows of every row of the data: features
// projected (feature space), label codes (label space), or the embedding
// (mds, fit rows only). A feature-space model fitted just now on every row
// (no split, no cached decomposition) projected them as it was fitted,
// (X − 1μᵀ)·P by analysis.Project as Transform computes them: that product
// is taken rather than made again (a tenth of an mddmp job on 50 000 ×
// 500).
func projectedRows(m *analysis.Model, p *plan) (*mat.Dense, error) {
	if m.Basis == nil {
		return m.Projected, nil
	}
	in := p.fitInput()
	if m.Space == analysis.FeatureSpace && m.Projected != nil && len(m.Blocks) == 0 && fitsAllRows(p.fitRows, in) {
		if r, c := m.Projected.Dims(); r == len(p.fitRows) && c == m.Dim {
			return m.Projected, nil
		}
	}
	rows := in.LabelMatrix()
	if m.Space != analysis.LabelSpace {
		rows = featuresOf(in) // sparse rows stay sparse: X·P − 1μᵀP
	}
	return m.Transform(rows)
}

// fitsAllRows reports whether the fit rows are every row of in, in order
// (what subset then hands the fit unchanged).
func fitsAllRows(fitRows []int, in analysis.Input) bool {
	if n, _ := in.LabelDims(); len(fitRows) != n {
		return false
	}
	for i, r := range fitRows {
		if r != i {
			return false
		}
	}
	return true
}

type projectionFile struct {
	Rows    []string    `json:"rows"`
	Columns []string    `json:"columns"`
	Matrix  [][]float64 `json:"matrix"`
}

// EigenFile is eigenvalues.json.
type EigenFile struct {
	Eigenvalues []float64 `json:"eigenvalues"`
	D           int       `json:"d"`
	Energy      float64   `json:"energy"`
	Rank        int       `json:"rank"`
	RankOf      string    `json:"rank_of"`
	// Order is how many eigenvalues the method's matrix has; more than
	// len(Eigenvalues) when only the leading ones were computed. Total is
	// the positive eigenvalues' sum that Energy is a share of (the trace,
	// for a partial spectrum). RankAtLeast says Rank is a lower bound. All
	// are absent in files written before they existed.
	Order       int     `json:"order,omitempty"`
	Total       float64 `json:"total,omitempty"`
	RankAtLeast bool    `json:"rank_at_least,omitempty"`
	// Residuals are analysis.Model.Residuals: ‖Av − λv‖₂/‖A‖₂ of each
	// computed pair when an operator route computed them; absent
	// otherwise.
	Residuals []float64 `json:"residuals,omitempty"`
	// Stress, for metric and nonmetric mds, is how well the embedding
	// keeps the rows' distances (analysis.Stress); absent otherwise.
	Stress *analysis.Stress `json:"stress,omitempty"`
}

// MetricsFile is metrics.json.
type MetricsFile struct {
	Classifier evaluate.Options `json:"classifier"`
	// Preprocess is the request's preprocessing, applied inside each split
	// (absent in files written before it existed: none).
	Preprocess string         `json:"preprocess,omitempty"`
	Split      Split          `json:"split"`
	Rows       []evaluate.Row `json:"rows"`
	Notes      []string       `json:"notes,omitempty"`
	// EvaluatedOn says in words which rows the metrics were measured on.
	EvaluatedOn string `json:"evaluated_on,omitempty"`
	// TestDataset is the test data set the metrics come from, if the job
	// had one.
	TestDataset *ManifestDataset `json:"test_dataset,omitempty"`
	// Datasets are a study's data sets, in the order of its request; the
	// Dataset of each row is one of their ids.
	Datasets []ManifestDataset `json:"datasets,omitempty"`
	// Version is the software that computed the metrics, as in model.json
	// (absent in files written before it was recorded).
	Version string `json:"software_version,omitempty"`
}

// evaluatedOn says which rows a job's metrics come from.
// testName names the test data set, if any.
func evaluatedOn(req Request, p *plan, testName string) string {
	switch s := req.Split; {
	case p.test != nil:
		return fmt.Sprintf("the %d rows of the test data set %s, the models fitted on the %d rows of the training data set", p.test.Rows(), testName, p.train.Rows())
	case s.Kind == SplitHoldout:
		return fmt.Sprintf("the held-out rows of a holdout (%d of %d rows, seed %d)", len(p.splits[0].Test), p.train.Rows(), s.Seed)
	case s.Kind == SplitKFold:
		return fmt.Sprintf("the test rows of each of %d folds (seed %d); each metric is the mean over the folds", len(p.splits), s.Seed)
	case s.Kind == SplitPredefined:
		return fmt.Sprintf("the test rows of each of the data set's %d predefined folds; each metric is the mean over the folds", len(p.splits))
	}
	return ""
}

// Manifest is model.json: everything needed to trace a result back and to
// use the projection elsewhere.
type Manifest struct {
	Method      string           `json:"method"`
	MethodName  string           `json:"method_name"`
	Paper       string           `json:"paper"`
	Space       analysis.Space   `json:"space"`
	Params      analysis.Params  `json:"params"`
	D           int              `json:"d"`
	Energy      float64          `json:"energy"`
	Rank        int              `json:"rank"`
	Split       Split            `json:"split"`
	Seed        uint64           `json:"seed"`
	Dataset     ManifestDataset  `json:"dataset"`
	TestDataset *ManifestDataset `json:"test_dataset,omitempty"`
	Version     string           `json:"software_version"`
	Job         string           `json:"job"`
	CreatedAt   time.Time        `json:"created_at"`
	// Rows names the rows of the projection: the features (feature space)
	// or the labels (label space).
	Rows        []string    `json:"rows"`
	Features    []string    `json:"features"`
	Labels      []string    `json:"labels"`
	Means       []float64   `json:"means"`
	LabelCoding string      `json:"label_coding,omitempty"`
	Projection  [][]float64 `json:"projection"`
	// Decoding, for mlcssp and faie, is the decoding matrix D (one row per
	// label, Dim columns): codes t decode to round(t·Dᵀ + means); the
	// projection is their encoder (analysis.Model.Decoding).
	Decoding    [][]float64      `json:"decoding,omitempty"`
	Eigenvalues []float64        `json:"eigenvalues"`
	Order       int              `json:"order,omitempty"` // Order, Total, RankAtLeast: as in EigenFile
	Total       float64          `json:"total,omitempty"`
	RankAtLeast bool             `json:"rank_at_least,omitempty"`
	Residuals   []float64        `json:"residuals,omitempty"` // as in EigenFile
	Stress      *analysis.Stress `json:"stress,omitempty"`    // as in EigenFile
	Blocks      []analysis.Block `json:"blocks,omitempty"`
	Notes       []string         `json:"notes,omitempty"`
	// Preprocess is the scaling fitted on the fit rows, applied to the rows
	// before they are projected (Transform); nil in manifests written
	// before it existed (none).
	Preprocess *preprocess.Scaler `json:"preprocess,omitempty"`
	// Kernel, for the kernel methods (kpca, kmddm), is the kernel, and
	// KernelRows (B×D, preprocessed as the fit rows) the basis rows that
	// the B rows of Projection (the dual coefficients α) belong to: every
	// training row for the exact dual, the Nyström landmarks otherwise;
	// KernelRowNumbers are their 1-based rows in the data set. A row x
	// projects to (k(x) − Means)·Projection, k(x)_j = Kernel(x,
	// KernelRows_j), and Means holds the B column means k̄ of the training
	// rows' kernel.
	Kernel           *analysis.Kernel `json:"kernel,omitempty"`
	KernelRows       [][]float64      `json:"kernel_rows,omitempty"`
	KernelRowNumbers []int            `json:"kernel_row_numbers,omitempty"`
}

// kernelRowNumbers are the 1-based data set rows of a kernel model's basis
// rows.
func kernelRowNumbers(m *analysis.Model, p *plan) []int {
	out := make([]int, len(m.Kernel.Index))
	for i, r := range m.Kernel.Index {
		out[i] = p.rowNumber[p.fitRows[r]]
	}
	return out
}

// ManifestDataset identifies the data a result came from.
type ManifestDataset struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
	Rows   int    `json:"rows"`
}

// manifest is model.json without its projection, which writeMethod
// streams into it (writeJSONMatrix).
func (x *Executor) manifest(job Job, m *analysis.Model, p *plan, rowNames []string) Manifest {
	desc, _ := analysis.Lookup(m.Method)
	req := job.Request
	mf := Manifest{
		Method: m.Method, MethodName: desc.Name, Paper: desc.Paper, Space: m.Space, Params: m.Params,
		D: m.Dim, Energy: m.Energy, Rank: m.Rank, Split: *req.Split, Seed: req.Split.Seed,
		Dataset: ManifestDataset{ID: p.trainRec.ID, Name: p.trainRec.Name, SHA256: p.trainRec.SHA256, Rows: p.trainRec.Summary.Rows},
		Version: x.version, Job: job.ID, CreatedAt: job.CreatedAt,
		Rows: rowNames, Features: p.train.Features.Strings(), Labels: p.train.Labels.Strings(), Means: m.Means,
		LabelCoding: m.LabelCoding, Eigenvalues: m.Eigenvalues, Order: m.Order, Total: m.Total, RankAtLeast: m.RankAtLeast, Residuals: m.Residuals, Stress: m.Stress, Blocks: m.Blocks, Notes: m.Notes, Preprocess: p.scaler,
	}
	if m.Kernel != nil {
		k := m.Kernel.Kernel
		mf.Kernel, mf.KernelRowNumbers = &k, kernelRowNumbers(m, p)
		r, _ := m.Kernel.Rows.Dims()
		mf.KernelRows = make([][]float64, r)
		for i := range r {
			mf.KernelRows[i] = m.Kernel.Rows.RawRowView(i)
		}
	}
	if m.OwnDecoder() {
		dec := m.Decoding()
		for i := range dec.RawMatrix().Rows {
			mf.Decoding = append(mf.Decoding, slices.Clone(dec.RawRowView(i)))
		}
	}
	if req.TestDataset != "" {
		rec, err := x.store.Dataset(req.TestDataset)
		if err == nil {
			mf.TestDataset = &ManifestDataset{ID: rec.ID, Name: rec.Name, SHA256: rec.SHA256, Rows: rec.Summary.Rows}
		}
	}
	return mf
}

// ReadManifest reads a succeeded job's model.json for a method.
func ReadManifest(dir string) (*Manifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, FileModel))
	if err != nil {
		return nil, fmt.Errorf("reading the model: %w", err)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("decoding the model: %w", err)
	}
	return &m, nil
}

// ErrNoProjection is returned by Transform for methods without a feature
// projection.
var ErrNoProjection = errors.New("this method has no projection of the features")

// Transform projects new rows with a manifest's preprocessing, means and
// projection. x is not changed.
func (m *Manifest) Transform(x *mat.Dense) (*mat.Dense, error) {
	if m.Space != analysis.FeatureSpace || len(m.Projection) == 0 {
		return nil, ErrNoProjection
	}
	x, err := m.scale(x)
	if err != nil {
		return nil, err
	}
	p := mat.NewDense(len(m.Projection), m.D, nil)
	for i, row := range m.Projection {
		p.SetRow(i, row)
	}
	if m.Kernel != nil {
		if len(m.KernelRows) != len(m.Projection) || len(m.Means) != len(m.Projection) {
			return nil, fmt.Errorf("the kernel model has %d basis rows, %d means and %d rows of coefficients", len(m.KernelRows), len(m.Means), len(m.Projection))
		}
		basis := mat.NewDense(len(m.KernelRows), len(m.KernelRows[0]), nil)
		for i, row := range m.KernelRows {
			basis.SetRow(i, row)
		}
		kb := analysis.KernelBasis{Kernel: *m.Kernel, Rows: basis}
		return kb.Project(x, m.Means, p)
	}
	if _, d := x.Dims(); d != len(m.Projection) {
		return nil, fmt.Errorf("the rows have %d features; the projection has %d rows", d, len(m.Projection))
	}
	return analysis.Project(x, m.Means, p), nil
}

// inputOf is a data set as a method's input: its features and labels as
// they are held (X, or Sparse for features stored sparse; Y, or Labels
// for labels stored sparse; never a dense copy). The methods read either
// form; evaluate.Run makes the labels dense for its classifiers, which
// admission counts.
func inputOf(ds *dataset.Dataset) analysis.Input {
	in := analysis.Input{X: ds.X, Sparse: ds.Sparse, Y: ds.Y, Labels: ds.YSparse, FeatureNames: ds.Features.Strings()}
	if ds.Kind == dataset.MultiDim {
		for _, c := range ds.Categories {
			in.Classes = append(in.Classes, len(c))
		}
	}
	return in
}

// subset takes rows of an input: in itself when they are all of its rows
// (in order, as the plan's fit rows then are), else a copy; sparse
// features stay sparse.
func subset(in analysis.Input, rows []int) analysis.Input {
	if n, _ := in.LabelDims(); len(rows) == n {
		return in
	}
	return in.SelectRows(rows)
}

func seq(from, to int) []int {
	s := make([]int, to-from)
	for i := range s {
		s[i] = from + i
	}
	return s
}

// methodNotes are a model's notes as the job's notes list them: each
// named by its method, since a job of several methods lists them together
// (model.json keeps them as they are, within the method's files); a
// note that names its method already is left as it is.
func methodNotes(id string, notes []string) []string {
	out := make([]string, len(notes))
	for i, n := range notes {
		if out[i] = n; !strings.HasPrefix(n, id+": ") {
			out[i] = id + ": " + n
		}
	}
	return out
}
