package handlers_test

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"mldr/internal/dataset"
)

// wideSVM is a libsvm file of 300 rows × 300 features, one in ten not
// zero, and 3 labels: enough cells to be stored sparse.
func wideSVM() string {
	var b strings.Builder
	for i := range 300 {
		fmt.Fprintf(&b, "%d,2", i%2)
		for j := range 300 {
			if (i+j)%10 == 0 {
				fmt.Fprintf(&b, " %d:%d.25", j+1, (i+j)%9-4)
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// TestUploadLibSVM uploads a libsvm file: it is recognised by its content,
// stored sparse, and its data.csv loads back to the same data.
func TestUploadLibSVM(t *testing.T) {
	s := newServer(t, t.TempDir(), 1<<20)
	in := wideSVM()
	resp, body := s.upload("/api/datasets", part{name: "file", file: "wide.svm", body: in})
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("POST /api/datasets: got %d %s, want 201", resp.StatusCode, body)
	}
	d := decode[struct {
		ID       string   `json:"id"`
		Rows     int      `json:"rows"`
		Features int      `json:"features"`
		Labels   []string `json:"labels"`
		Kind     string   `json:"kind"`
		Storage  string   `json:"storage"`
		NonZeros int64    `json:"nonzeros"`
	}](t, body)
	if d.Rows != 300 || d.Features != 300 || strings.Join(d.Labels, ",") != "l0,l2,l1" || d.Kind != "multilabel" || d.Storage != "sparse" || d.NonZeros != 9000 {
		t.Errorf("got %+v, want 300×300, labels l0,l2,l1 (in the order they first appear), multilabel, sparse with 9000 non-zeros", d)
	}
	resp, csv := s.do("GET", "/api/datasets/"+d.ID+"/data.csv", "", nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET data.csv: got %d, want 200", resp.StatusCode)
	}
	back, err := dataset.Load(bytes.NewReader(csv), dataset.Options{})
	if err != nil {
		t.Fatalf("data.csv: got error %q, want none", err)
	}
	want, err := dataset.Load(strings.NewReader(in), dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !mat64Equal(back.Dense().RawMatrix().Data, want.Dense().RawMatrix().Data) || !mat64Equal(back.Y.RawMatrix().Data, want.Y.RawMatrix().Data) {
		t.Errorf("data.csv loads to other data than the file uploaded")
	}

	// A refused libsvm file names the line and the column.
	resp, body = s.upload("/api/datasets", part{name: "file", file: "bad.svm", body: "0 1:1\n1 2:x\n"})
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("bad file: got %d %s, want 400", resp.StatusCode, body)
	}
	if e := decode[apiErr](t, body); e.Line != 2 || e.Column != "f2" || !strings.Contains(e.Error, "not a number") {
		t.Errorf("bad file: got %+v, want line 2, column f2, not a number", e)
	}
	// So does format=libsvm given for a file that is not.
	resp, body = s.upload("/api/datasets", part{name: "format", body: "libsvm"}, part{name: "file", file: "ok.csv", body: smallCSV})
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("format=libsvm on CSV: got %d %s, want 400", resp.StatusCode, body)
	}
	if e := decode[apiErr](t, body); e.Line != 1 || e.Column == "" {
		t.Errorf("format=libsvm on CSV: got %+v, want line 1 and a column", e)
	}
}

func mat64Equal(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
