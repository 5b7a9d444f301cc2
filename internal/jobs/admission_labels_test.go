package jobs

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"testing"

	"mldr/internal/analysis"
	"mldr/internal/dataset"
	"mldr/internal/evaluate"
	"mldr/internal/store"
)

// xcText is an XC-format file (an "N D q" header, then "l1,l2 f:v …" a
// row, 0-based) of n rows, d features with nnz non-zeros a row and q
// labels with 1–4 a row, the first label of a row marking its features.
func xcText(n, d, q, nnz int, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, 3))
	var b bytes.Buffer
	fmt.Fprintf(&b, "%d %d %d\n", n, d, q)
	for range n {
		first := rng.IntN(q)
		labels := map[int]bool{first: true}
		for range rng.IntN(4) {
			labels[rng.IntN(q)] = true
		}
		sep := ""
		for l := range q {
			if labels[l] {
				fmt.Fprintf(&b, "%s%d", sep, l)
				sep = ","
			}
		}
		cols := map[int]bool{first % d: true}
		for len(cols) < nnz {
			cols[rng.IntN(d)] = true
		}
		for j := range d {
			if cols[j] {
				v := 0.1 + rng.Float64()
				if j == first%d {
					v += 2
				}
				fmt.Fprintf(&b, " %d:%.4f", j, v)
			}
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// TestAdmitSparseLabels: a data set of 2 000 labels held sparse is fitted
// with its labels sparse (Input.Labels), so a job without an evaluation
// is admitted under a limit the same labels counted dense exceed, and its
// measured peak stays under its estimate; with an evaluation, the dense
// copy evaluate.Run makes is counted and the peak stays under that
// estimate too; both jobs succeed.
func TestAdmitSparseLabels(t *testing.T) {
	if testing.Short() {
		t.Skip("runs jobs on 8 000 rows with 2 000 labels")
	}
	e := newExecEnv(t)
	rec, err := e.store.Import(context.Background(), store.Upload{Name: "wide-labels", FileName: "wide-labels.txt", Source: bytes.NewReader(xcText(8000, 300, 2000, 12, 5))})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Summary.LabelStorage != dataset.StorageSparse {
		t.Fatalf("label storage: got %q, want sparse", rec.Summary.LabelStorage)
	}
	asDense := rec
	asDense.Summary.LabelStorage = dataset.StorageDense
	for _, tc := range []struct {
		name string
		req  Request
	}{
		{"no evaluation", Request{Dataset: rec.ID, Methods: []string{"pca", "plst", "mddmp"}, Params: analysis.Params{D: 10}}},
		{"knn evaluation", Request{Dataset: rec.ID, Methods: []string{"plst"}, Params: analysis.Params{D: 10},
			Split: &Split{Kind: SplitHoldout, TestFraction: 0.2, Seed: 1}, Evaluate: &Evaluate{Classifier: evaluate.ClassifierKNN, K: 5}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := tc.req
			req.Normalize()
			sparseEst, denseEst := estimateBoth(t, req, rec, asDense)
			if tc.req.Evaluate == nil {
				// Between the two estimates: admitted sparse, refused counted dense.
				limit := (sparseEst.Peak + denseEst.Peak) / 2
				if denseEst.Data-sparseEst.Data < 8*8000*2000*9/10 {
					t.Errorf("data %d sparse, %d counted dense: want the dense labels' 128 MB between them", sparseEst.Data, denseEst.Data)
				}
				var re *RequestError
				if err := req.Validate(fakeDatasets{rec.ID: asDense}, Limits{MaxJobMemory: limit}); err == nil || !asRequestError(err, &re) || re.Status != http.StatusRequestEntityTooLarge {
					t.Errorf("counted dense under %d: got %v, want 413", limit, err)
				}
				if err := req.Validate(e.store, Limits{MaxJobMemory: limit}); err != nil {
					t.Errorf("sparse under %d: got %v, want admitted", limit, err)
				}
			}
			peak, id := e.runUnderEstimate(req, sparseEst)
			// plst's 2 000 labels take its label-Gram operator, which
			// reports every pair's residual in eigenvalues.json.
			var ef EigenFile
			readJSONFile(t, filepath.Join(e.store.JobDir(id), "plst", FileEigenvalues), &ef)
			if len(ef.Residuals) != len(ef.Eigenvalues) || len(ef.Residuals) == 0 {
				t.Errorf("plst's eigenvalues.json: %d residuals for %d eigenvalues", len(ef.Residuals), len(ef.Eigenvalues))
			}
			for i, r := range ef.Residuals {
				if !(r <= 1e-9) {
					t.Errorf("plst's pair %d: residual %.3g, want ≤ 1e-9", i+1, r)
				}
			}
			t.Logf("estimate %d (data %d) sparse, %d (data %d) counted dense; measured peak %d",
				sparseEst.Peak, sparseEst.Data, denseEst.Peak, denseEst.Data, peak)
		})
	}
}
