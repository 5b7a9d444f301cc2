package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestStudyEndToEnd runs a study over yeast, emotions and scene (the
// Mulan training parts) through the real binary, and checks its
// comparison.json against scipy run by testdata/study_check.py on the
// per-data-set numbers of its metrics.json: once with a seeded holdout, as
// the papers' tables, and once with 3 folds, for the paired t-tests.
func TestStudyEndToEnd(t *testing.T) {
	paths := []string{sharedFile(t, "yeast/yeast-train.csv"), sharedFile(t, "emotions/emotions-train.csv"), sharedFile(t, "scene/scene-train.csv")}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	a := start(t, t.TempDir(), "-workers", "1")
	var ids []string
	for _, p := range paths {
		ds, code := a.upload(filepath.Base(p), mustRead(t, p))
		if code != http.StatusCreated {
			t.Fatalf("uploading %s: got status %d, want 201", p, code)
		}
		ids = append(ids, ds.ID)
	}
	scipy := exec.CommandContext(ctx, "/usr/bin/python3", "-c", "import scipy").Run() == nil
	if !scipy && os.Getenv("MLDR_REQUIRE_SHARED") == "1" {
		t.Fatal("Debian's python3-scipy is missing; scripts/test installs it")
	}
	for _, split := range []map[string]any{
		{"kind": "holdout", "test_fraction": 0.25, "seed": 7},
		{"kind": "kfold", "folds": 3, "seed": 7},
	} {
		t.Run(split["kind"].(string), func(t *testing.T) {
			id := jtSubmit(ctx, t, a, map[string]any{"datasets": ids, "methods": []string{"pca", "mddmp", "cplst"}, "params": map[string]any{"d": 5},
				"split": split, "evaluate": map[string]any{"classifier": "ridge"}})
			j := jtPoll(ctx, t, a, id, "the study to finish", func(j jtJob) bool { return jtTerminal(j.Status) })
			if j.Status != "succeeded" {
				t.Fatalf("the study ended %s: %s", j.Status, j.Error)
			}
			dir := t.TempDir()
			for _, f := range []string{"metrics.json", "comparison.json", "comparison.csv", "comparison.tex", "comparison-standalone.tex", "comparison.md"} {
				r := jtGet(ctx, t, a.url+"/api/jobs/"+id+"/"+f)
				jtWantStatus(t, f, r, http.StatusOK)
				if err := os.WriteFile(filepath.Join(dir, f), r.Body, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var c struct {
				Comparisons []struct {
					Metric       string   `json:"metric"`
					Methods      []string `json:"methods"`
					DatasetNames []string `json:"dataset_names"`
					PairedT      []any    `json:"paired_t"`
				} `json:"comparisons"`
			}
			b, _ := os.ReadFile(filepath.Join(dir, "comparison.json"))
			if err := json.Unmarshal(b, &c); err != nil {
				t.Fatal(err)
			}
			if len(c.Comparisons) < 10 || strings.Join(c.Comparisons[0].Methods, ",") != "ori,pca,mddmp,cplst" ||
				strings.Join(c.Comparisons[0].DatasetNames, ",") != "yeast-train,emotions-train,scene-train" {
				t.Fatalf("comparison.json: %d comparisons, the first %+v", len(c.Comparisons), c.Comparisons[0])
			}
			if folds := split["kind"] == "kfold"; folds != (len(c.Comparisons[0].PairedT) == 3) {
				t.Errorf("paired t-tests: %d data sets with folds = %v", len(c.Comparisons[0].PairedT), folds)
			}
			tex, _ := os.ReadFile(filepath.Join(dir, "comparison.tex"))
			if !strings.Contains(string(tex), `\textbf{`) || !strings.Contains(string(tex), `\underline{`) || !strings.Contains(string(tex), "emotions-train") {
				t.Errorf("comparison.tex has no bold best, no underlined second or no data set names")
			}
			md, _ := os.ReadFile(filepath.Join(dir, "comparison.md"))
			if !strings.Contains(string(md), "| yeast-train | ori |") || !strings.Contains(string(md), "MDDM (orthonormal directions)") {
				t.Errorf("comparison.md has no row of yeast-train's ori or no MDDM:\n%s", md)
			}
			if !scipy {
				t.Skip("no /usr/bin/python3 with scipy: the comparison is not checked against it")
			}
			out, err := exec.CommandContext(ctx, "/usr/bin/python3", "testdata/study_check.py",
				filepath.Join(dir, "metrics.json"), filepath.Join(dir, "comparison.json")).CombinedOutput()
			if err != nil || !strings.HasPrefix(string(out), "checked ") || strings.HasPrefix(string(out), "checked 0 ") {
				t.Fatalf("study_check.py: %v\n%s", err, out)
			}
			t.Logf("scipy: %s", strings.TrimSpace(string(out)))
		})
	}
}
