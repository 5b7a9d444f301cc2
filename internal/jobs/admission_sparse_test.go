package jobs

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"mldr/internal/analysis"
	"mldr/internal/dataset"
	"mldr/internal/memtest"
	"mldr/internal/store"
)

// TestAdmitSparse: a data set stored sparse is admitted under a memory
// limit that the same data counted dense would exceed (413), and the job's
// measured peak (loading, fitting, writing) stays under its estimate
// without the runtime's overhead.
func TestAdmitSparse(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a job on 12 000 × 400 data")
	}
	e := newExecEnv(t)
	rec := e.importCSV("wide-sparse", sparseCSV(12000, 400, 5, 0.01, 4))
	if rec.Summary.Storage != dataset.StorageSparse {
		t.Fatalf("storage: got %q, want sparse", rec.Summary.Storage)
	}
	req := Request{Dataset: rec.ID, Methods: []string{"pca", "mddmp", "cplst"}, Params: analysis.Params{D: 5}, Split: &Split{Kind: SplitHoldout, TestFraction: 0.2}}
	req.Normalize()
	asDense := rec
	asDense.Summary.Storage = dataset.StorageDense
	sparseEst, denseEst := estimateBoth(t, req, rec, asDense)
	// The smallest limit (in MiB) the sparse job is admitted under.
	admitted := func(r store.DatasetRecord, mib int) bool {
		f, err := admit(req, r, store.DatasetRecord{}, int64(mib)<<20, realEstimators(), false)
		if err != nil {
			t.Fatal(err)
		}
		return f == nil
	}
	lo, hi := 1, 1<<14
	for lo < hi {
		mid := (lo + hi) / 2
		if admitted(rec, mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	limit := int64(lo) << 20
	if admitted(asDense, lo) {
		t.Fatalf("counted dense (estimate %d) the job is admitted under %d too; want refused", denseEst.Peak, limit)
	}
	ds := fakeDatasets{rec.ID: asDense}
	var re *RequestError
	if err := req.Validate(ds, Limits{MaxJobMemory: limit}); err == nil || !asRequestError(err, &re) || re.Status != http.StatusRequestEntityTooLarge {
		t.Errorf("counted dense under %d: got %v, want 413", limit, err)
	}
	if err := req.Validate(e.store, Limits{MaxJobMemory: limit}); err != nil {
		t.Errorf("sparse under %d: got %v, want admitted", limit, err)
	}
	peak, _ := e.runUnderEstimate(req, sparseEst)
	t.Logf("limit %d MiB; estimate %d (data %d) sparse, %d (data %d) counted dense; measured peak %d",
		lo, sparseEst.Peak, sparseEst.Data, denseEst.Peak, denseEst.Data, peak)
}

// estimateBoth is EstimateJob of req on the record as stored and on the
// same record counted another way (asDense).
func estimateBoth(t *testing.T, req Request, rec, asDense store.DatasetRecord) (stored, dense Estimate) {
	t.Helper()
	stored, err := EstimateJob(req, rec, store.DatasetRecord{})
	if err != nil {
		t.Fatal(err)
	}
	if dense, err = EstimateJob(req, asDense, store.DatasetRecord{}); err != nil {
		t.Fatal(err)
	}
	return stored, dense
}

// runUnderEstimate runs req's job and requires its measured heap peak to
// stay under est without the runtime's overhead; it returns the peak and
// the job's ID.
func (e *execEnv) runUnderEstimate(req Request, est Estimate) (int64, string) {
	e.t.Helper()
	j := Job{ID: store.NewID(), Request: req, CreatedAt: time.Now()}
	var runErr error
	bound := est.Peak - est.Overhead
	// Only the upper side of the band matters here: a slack no peak reaches.
	peak, _ := memtest.PeakWithin(bound, 1<<20, 0, func() {
		_, runErr = e.exec.Execute(context.Background(), j, func(float64, string, string) {})
	})
	if runErr != nil {
		e.t.Fatal(runErr)
	}
	if peak > bound {
		e.t.Errorf("measured peak %d bytes, above the estimate %d (without the %d of overhead)", peak, bound, est.Overhead)
	}
	return peak, j.ID
}

func asRequestError(err error, re **RequestError) bool {
	r, ok := err.(*RequestError)
	*re = r
	return ok && strings.Contains(r.Msg, "-max-job-memory")
}
