package handlers_test

import (
	"math"
	"net/http"
	"sort"
	"strings"
	"testing"

	"mldr/internal/dataset"
	"mldr/internal/jobs"
)

// TestSparseDataset: a data set stored sparse says so on its page, a job
// on it succeeds, the explorer's nearest rows in feature space and a
// feature's values are those of the dense rows, and preprocess
// standardize is refused with 422 on preprocess.
func TestSparseDataset(t *testing.T) {
	s := newJobServer(t, 1, 0, nil)
	in := wideSVM()
	resp, body := s.upload("/api/datasets", part{name: "file", file: "wide.svm", body: in})
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("POST /api/datasets: got %d %s, want 201", resp.StatusCode, body)
	}
	id := decode[struct{ ID string }](t, body).ID

	resp, body = s.do("GET", "/datasets/"+id, "", nil)
	want := "sparse: 10.0 % of 90 000 cells are non-zero"
	doc := parseHTML(t, body)
	if got := doc.Find(`[data-testid="storage"]`).Text() + ": " + doc.Find(`[data-testid="storage-share"]`).Text(); resp.StatusCode != http.StatusOK || got != want {
		t.Errorf("data set page: got %d, storage %q, want 200, %q", resp.StatusCode, got, want)
	}

	resp, refused := s.submit(`{"dataset":"` + id + `","method":"pca","params":{"d":2},"preprocess":"standardize"}`)
	if resp.StatusCode != http.StatusUnprocessableEntity || refused["field"] != "preprocess" ||
		!strings.Contains(refused["error"].(string), "is stored sparse (10.0 % of its 300 × 300 feature cells are non-zero)") {
		t.Errorf("standardize on sparse data: got %d %v, want 422 on preprocess", resp.StatusCode, refused)
	}

	resp, job := s.submit(`{"dataset":"` + id + `","method":"pca","params":{"d":2}}`)
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("POST /api/jobs: got %d %v, want 202", resp.StatusCode, job)
	}
	jid := job["id"].(string)
	s.waitJob(jid, jobs.Succeeded)

	ds, err := dataset.Load(strings.NewReader(in), dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	x := ds.Dense()
	// The three rows nearest to row 2 in feature space, ties to the earlier.
	type cand struct {
		row  int
		dist float64
	}
	var all []cand
	for i := range 300 {
		if i == 1 {
			continue
		}
		d := 0.0
		for j := range 300 {
			v := x.At(i, j) - x.At(1, j)
			d += v * v
		}
		all = append(all, cand{i + 1, math.Sqrt(d)})
	}
	sort.SliceStable(all, func(a, b int) bool { return all[a].dist < all[b].dist })
	resp, body = s.do("GET", "/api/jobs/"+jid+"/rows/2?method=pca&k=3", "", nil)
	row := decode[struct {
		Original []struct {
			Row      int
			Distance float64
		}
		Note string
	}](t, body)
	if resp.StatusCode != http.StatusOK || len(row.Original) != 3 {
		t.Fatalf("rows/2: got %d %s, want 200 with 3 nearest rows", resp.StatusCode, body)
	}
	for i, n := range row.Original {
		if n.Row != all[i].row || math.Abs(n.Distance-all[i].dist) > 1e-12 {
			t.Errorf("nearest %d: got row %d at %v, want row %d at %v", i+1, n.Row, n.Distance, all[i].row, all[i].dist)
		}
	}
	resp, body = s.do("GET", "/api/jobs/"+jid+"/values?method=pca&of=feature:"+ds.Features.At(0), "", nil)
	vals := floats(t, body)
	if resp.StatusCode != http.StatusOK || len(vals) != 300 {
		t.Fatalf("values of %s: got %d, %d values, want 200, 300", ds.Features.At(0), resp.StatusCode, len(vals))
	}
	for i, v := range vals {
		if w := float32(x.At(i, 0)); v != w {
			t.Fatalf("values of %s, row %d: got %v, want %v", ds.Features.At(0), i+1, v, w)
		}
	}
}
