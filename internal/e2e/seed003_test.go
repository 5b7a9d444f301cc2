package e2e

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// seed003Song is testdata/seed003_song.json: LIBLINEAR's numbers for seed
// 003's BR rows on song, made by testdata/seed003_song.py.
type seed003Song struct {
	Data struct {
		File   string `json:"file"`
		SHA256 string `json:"sha256"`
	} `json:"data"`
	FoldsFile struct {
		File   string `json:"file"`
		SHA256 string `json:"sha256"`
	} `json:"folds_file"`
	D    int                           `json:"d"`
	Mean map[string]map[string]float64 `json:"mean"`
}

// TestSeed003Song reruns seed 003's BR rows on song through the real
// binary with one API call: the data set uploaded with its predefined
// folds, sdem and pca with neither d nor thr (so at seed 003's d′ =
// ΣK_j − q = 6), the classifier svm with its defaults. The Hamming score,
// exact match and sub-exact match of ori, sdem and pca (means over the 10
// folds) must equal LIBLINEAR's (liblinear-tools 2.3.0, -s 3 -c 1 -B 1
// -e 0.0001) on the same folds, to 1e-3: testdata/seed003_song.py, whose
// pca and sdem are numpy's, computed from docs/METHODS.md. (One test row
// predicted otherwise on one fold moves a mean exact match by 1/79/10 ≈
// 1.3e-3, so this holds only if every prediction is LIBLINEAR's.)
func TestSeed003Song(t *testing.T) {
	csvPath, foldsPath := sharedFile(t, "song/song.csv"), sharedFile(t, "song/song-folds.csv")
	raw, err := os.ReadFile(filepath.Join("testdata", "seed003_song.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref seed003Song
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	src := "testdata/seed003_song.json from testdata/seed003_song.py (liblinear-tools 2.3.0)"
	csvData, foldsData := mustRead(t, csvPath), mustRead(t, foldsPath)
	for _, f := range []struct {
		data       []byte
		file, want string
	}{{csvData, ref.Data.File, ref.Data.SHA256}, {foldsData, ref.FoldsFile.File, ref.FoldsFile.SHA256}} {
		if sum := sha256.Sum256(f.data); hex.EncodeToString(sum[:]) != f.want {
			t.Fatalf("%s is not the file the %s was computed from", f.file, src)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	a := start(t, t.TempDir(), "-workers", "1")

	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for _, part := range []struct {
		field, name string
		data        []byte
	}{{"file", "song.csv", csvData}, {"folds", "song-folds.csv", foldsData}} {
		w, err := mw.CreateFormFile(part.field, part.name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(part.data)
	}
	mw.Close()
	up := jtDo(ctx, t, "POST", a.url+"/api/datasets", mw.FormDataContentType(), &body)
	jtWantStatus(t, "uploading song with its folds", up, http.StatusCreated)
	var ds datasetInfo
	if err := json.Unmarshal(up.Body, &ds); err != nil {
		t.Fatal(err)
	}

	began := time.Now()
	id := jtSubmit(ctx, t, a, map[string]any{"dataset": ds.ID, "methods": []string{"sdem", "pca"},
		"split": map[string]any{"kind": "predefined"}, "evaluate": map[string]any{"classifier": "svm"}})
	j := jtPoll(ctx, t, a, id, "the job to finish", func(j jtJob) bool { return jtTerminal(j.Status) })
	if j.Status != "succeeded" {
		t.Fatalf("the job ended %s: %s", j.Status, j.Error)
	}
	t.Logf("the job took %.1f s", time.Since(began).Seconds())
	for _, m := range []string{"sdem", "pca"} {
		if !slices.ContainsFunc(j.Notes, func(n string) bool { return strings.HasPrefix(n, m+": d = ΣK_j − q = 6") }) {
			t.Errorf("notes %q: none says %s kept seed 003's d′ = 6", j.Notes, m)
		}
	}
	r := jtGet(ctx, t, a.url+"/api/jobs/"+id+"/metrics.json")
	jtWantStatus(t, "metrics.json", r, http.StatusOK)
	var mf struct {
		Classifier struct {
			Classifier string  `json:"classifier"`
			C          float64 `json:"c"`
			Eps        float64 `json:"eps"`
		} `json:"classifier"`
		Rows []struct {
			Method  string             `json:"method"`
			D       int                `json:"d"`
			Fold    *int               `json:"fold"`
			Folds   int                `json:"folds"`
			Metrics map[string]float64 `json:"metrics"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(r.Body, &mf); err != nil {
		t.Fatal(err)
	}
	if c := mf.Classifier; c.Classifier != "svm" || c.C != 1 || c.Eps != 1e-4 {
		t.Errorf("metrics.json's classifier %+v, want svm with c = 1, eps = 0.0001", c)
	}
	seen := map[string]bool{}
	for _, row := range mf.Rows {
		if row.Fold != nil {
			continue
		}
		want, ok := ref.Mean[row.Method]
		if !ok {
			t.Errorf("a mean row of method %q", row.Method)
			continue
		}
		seen[row.Method] = true
		if row.Folds != 10 || (row.Method != "ori" && row.D != ref.D) {
			t.Errorf("%s: d = %d over %d folds, want d′ = %d over 10", row.Method, row.D, row.Folds, ref.D)
		}
		for _, k := range []string{"hamming_score", "exact_match", "sub_exact_match"} {
			if got := row.Metrics[k]; !(math.Abs(got-want[k]) <= 1e-3) {
				t.Errorf("%s: %s = %.6f, LIBLINEAR's %.6f (%s)", row.Method, k, got, want[k], src)
			} else {
				t.Logf("%s: %s = %.6f, LIBLINEAR's %.6f (off by %.2g)", row.Method, k, got, want[k], got-want[k])
			}
		}
	}
	for _, m := range []string{"ori", "sdem", "pca"} {
		if !seen[m] {
			t.Errorf("metrics.json has no mean row of %s", m)
		}
	}
}
