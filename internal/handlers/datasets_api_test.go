package handlers_test

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"mldr/internal/dataset"
)

func TestCreateAndReadDataset(t *testing.T) {
	s := newServer(t, t.TempDir(), 1<<20)
	resp, body := s.upload("/api/datasets", part{name: "name", body: "tiny"}, part{name: "file", file: "tiny.csv", body: smallCSV})
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("POST /api/datasets: got %d %s, want 201", resp.StatusCode, body)
	}
	d := decode[apiDataset](t, body)
	if d.Name != "tiny" || d.Rows != 3 || d.Features != 2 || d.Kind != "multilabel" || strings.Join(d.Labels, ",") != "x,y" {
		t.Errorf("got %+v, want tiny with 3 rows, 2 features, labels x,y", d)
	}
	if d.LabelCardinality == nil || *d.LabelCardinality != 4.0/3 || d.DistinctLabelsets != 3 {
		t.Errorf("got cardinality %v, distinct %d; want 4/3 and 3", d.LabelCardinality, d.DistinctLabelsets)
	}
	if loc := resp.Header.Get("Location"); loc != "/api/datasets/"+d.ID {
		t.Errorf("got Location %q, want /api/datasets/%s", loc, d.ID)
	}
	resp, body = s.do("GET", "/api/datasets/"+d.ID, "", nil)
	if resp.StatusCode != http.StatusOK || decode[apiDataset](t, body).ID != d.ID {
		t.Errorf("GET one: got %d %s", resp.StatusCode, body)
	}
	resp, body = s.do("GET", "/api/datasets", "", nil)
	if list := decode[[]apiDataset](t, body); resp.StatusCode != 200 || len(list) != 1 || list[0].ID != d.ID {
		t.Errorf("GET list: got %d %s", resp.StatusCode, body)
	}
	// The file as uploaded comes back byte for byte; the data as read load again.
	if _, src := s.do("GET", "/api/datasets/"+d.ID+"/source", "", nil); string(src) != smallCSV {
		t.Errorf("source: got %q, want %q", src, smallCSV)
	}
	resp, csv := s.do("GET", "/api/datasets/"+d.ID+"/data.csv", "", nil)
	if resp.Header.Get("Content-Disposition") != `attachment; filename=tiny.csv` {
		t.Errorf("got Content-Disposition %q", resp.Header.Get("Content-Disposition"))
	}
	ds, err := dataset.Load(bytes.NewReader(csv), dataset.Options{})
	if err != nil || ds.Rows() != 3 || ds.X.At(2, 1) != 6 || ds.Y.At(2, 1) != 0 {
		t.Errorf("data.csv does not load back: %v", err)
	}
}

// TestUploadFieldOrder checks that the options of an upload mean the same
// whether they come before its file (which is then read as it arrives)
// or after it (then read again from disk): the same data set either way.
func TestUploadFieldOrder(t *testing.T) {
	s := newServer(t, t.TempDir(), 1<<20)
	file := part{name: "file", file: "t.csv", body: "a,b,c,label:y\n1,2,x,0\n3,4,y,1\n5,6,z,1\n"}
	fields := []part{{name: "labels", body: "b,label:y"}, {name: "drop", body: "c"}, {name: "kind", body: "multidim"}}
	var got []apiDataset
	for _, parts := range [][]part{append(slices.Clone(fields), file), append([]part{file}, fields...)} {
		resp, body := s.upload("/api/datasets", parts...)
		if resp.StatusCode != http.StatusCreated {
			t.Fatalf("got %d %s, want 201", resp.StatusCode, body)
		}
		d := decode[apiDataset](t, body)
		if d.Features != 1 || strings.Join(d.Labels, ",") != "b,y" || d.Kind != "multidim" {
			t.Errorf("got %+v, want feature a and the labels b, y of a multidim set", d)
		}
		d.ID = ""
		got = append(got, d)
	}
	if !reflect.DeepEqual(got[0], got[1]) {
		t.Errorf("options before the file gave %+v, after it %+v", got[0], got[1])
	}
}

func TestUnknownIDs(t *testing.T) {
	s := newServer(t, t.TempDir(), 1<<20)
	for _, path := range []string{"/api/datasets/aaaaaaaaaaaaaaaa", "/api/datasets/..%2f..%2fetc", "/api/datasets/AAAA", "/api/datasets/aaaaaaaaaaaaaaaa/source", "/api/nothing"} {
		resp, body := s.do("GET", path, "", nil)
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: got %d, want 404", path, resp.StatusCode)
		}
		if e := decode[apiErr](t, body); e.Error == "" || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
			t.Errorf("GET %s: got body %s, want a JSON error", path, body)
		}
	}
	resp, _ := s.do("DELETE", "/api/datasets/aaaaaaaaaaaaaaaa", "", nil)
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("DELETE unknown: got %d, want 404", resp.StatusCode)
	}
}

// Every refused upload answers with a clear JSON error and leaves what is
// stored exactly as it was.
func TestRefusedUploadsChangeNothing(t *testing.T) {
	s := newServer(t, t.TempDir(), 4096)
	if resp, body := s.upload("/api/datasets", part{name: "file", file: "ok.csv", body: smallCSV}); resp.StatusCode != 201 {
		t.Fatalf("good upload: got %d %s", resp.StatusCode, body)
	}
	before := s.snapshot()
	big := "a,label:y\n" + strings.Repeat("1,0\n", 2000)
	tests := []struct {
		name   string
		parts  []part
		status int
		line   int
		column string
		field  string
		phrase string
	}{
		{"empty file", []part{{name: "file", file: "e.csv", body: ""}}, 400, 0, "", "", "empty"},
		{"header only", []part{{name: "file", file: "h.csv", body: "a,label:y\n"}}, 400, 1, "", "", "no data rows"},
		{"ragged row", []part{{name: "file", file: "r.csv", body: "a,b,label:y\n1,2,0\n3,1\n"}}, 400, 3, "", "", "expected 3 fields"},
		{"not a number", []part{{name: "file", file: "n.csv", body: "a,b,label:y\n1,2,0\n3,x7,1\n"}}, 400, 3, "b", "", "not a number"},
		{"missing value", []part{{name: "file", file: "m.csv", body: "a,b,label:y\n1,NA,0\n3,4,1\n"}}, 400, 2, "b", "", "missing value"},
		{"infinity", []part{{name: "file", file: "i.csv", body: "a,b,label:y\n1,2,0\n3,-Inf,1\n"}}, 400, 3, "b", "", "infinite"},
		{"duplicate columns", []part{{name: "file", file: "d.csv", body: "a,a,label:y\n1,2,0\n"}}, 400, 1, "a", "", "unique"},
		{"no label column", []part{{name: "file", file: "l.csv", body: "a,b\n1,2\n3,4\n"}}, 400, 0, "", "labels", "no label column"},
		{"label outside kind", []part{{name: "kind", body: "multilabel"}, {name: "file", file: "k.csv", body: "a,label:y\n1,0\n2,2\n"}}, 400, 3, "label:y", "kind", "not a binary label"},
		{"one row", []part{{name: "file", file: "o.csv", body: "a,label:y\n1,0\n"}}, 400, 0, "", "", "only 1 data row"},
		{"binary garbage", []part{{name: "file", file: "g.csv", body: "\x00\x01\x02garbage"}}, 400, 1, "", "", "binary"},
		{"zip file", []part{{name: "file", file: "x.xlsx", body: "PK\x03\x04rest"}}, 400, 1, "", "", "ZIP"},
		{"too large", []part{{name: "file", file: "big.csv", body: big}}, 413, 0, "", "file", "upload limit"},
		{"no file", []part{{name: "name", body: "x"}}, 400, 0, "", "file", "choose a CSV"},
		{"unknown field", []part{{name: "lables", body: "y"}, {name: "file", file: "ok.csv", body: smallCSV}}, 400, 0, "", "lables", "unknown field"},
		{"bad label_count", []part{{name: "label_count", body: "two"}, {name: "file", file: "ok.csv", body: smallCSV}}, 400, 0, "", "label_count", "whole number"},
		{"bad missing policy", []part{{name: "missing", body: "ignore"}, {name: "file", file: "ok.csv", body: smallCSV}}, 400, 0, "", "missing", "missing must be"},
		{"labels not in file", []part{{name: "labels", body: "nope"}, {name: "file", file: "ok.csv", body: smallCSV}}, 400, 0, "", "labels", "does not have"},
		{"bad xml", []part{{name: "xml", file: "l.xml", body: "<labels><label"}, {name: "file", file: "ok.arff", body: "@relation r\n@attribute a numeric\n@attribute y {0,1}\n@data\n1,0\n2,1\n"}}, 400, 1, "", "xml", "not valid XML"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := s.upload("/api/datasets", tc.parts...)
			if resp.StatusCode != tc.status {
				t.Fatalf("got status %d (%s), want %d", resp.StatusCode, body, tc.status)
			}
			e := decode[apiErr](t, body)
			if e.Line != tc.line || e.Column != tc.column || e.Field != tc.field {
				t.Errorf("got line %d column %q field %q, want %d %q %q (%s)", e.Line, e.Column, e.Field, tc.line, tc.column, tc.field, e.Error)
			}
			if !strings.Contains(e.Error, tc.phrase) {
				t.Errorf("got error %q, want it to contain %q", e.Error, tc.phrase)
			}
			if after := s.snapshot(); after != before {
				t.Errorf("the store changed:\nbefore %s\nafter %s", before, after)
			}
		})
	}
	t.Run("not multipart", func(t *testing.T) {
		resp, body := s.do("POST", "/api/datasets", "text/csv", strings.NewReader(smallCSV))
		if resp.StatusCode != 400 || decode[apiErr](t, body).Field != "file" {
			t.Errorf("got %d %s, want 400 about the file field", resp.StatusCode, body)
		}
	})
	// Bodies that are not whole forms: 400 naming the file field, and
	// nothing stored, even where the file itself arrived whole.
	whole, ct := multipartBody(t, part{name: "file", file: "ok.csv", body: smallCSV}, part{name: "name", body: "n"})
	form, _ := io.ReadAll(whole)
	cut := bytes.Index(form, []byte("name=\"name\"")) + 8
	for _, tc := range []struct{ name, body string }{
		{"cut inside a part's headers", string(form[:cut])},
		{"cut inside the file", string(form[:len(form)/3])},
		{"no final boundary", string(form[:bytes.LastIndex(form, []byte("\r\n--"))])},
		{"a line where a part must begin", strings.Replace(string(form), "\r\nContent-Disposition: form-data; name=\"name\"", " junk\r\n", 1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := s.do("POST", "/api/datasets", ct, strings.NewReader(tc.body))
			e := decode[apiErr](t, body)
			if resp.StatusCode != 400 || e.Field != "file" || !strings.Contains(e.Error, "incomplete or malformed") {
				t.Errorf("got %d %s, want 400: the upload arrived incomplete or malformed", resp.StatusCode, body)
			}
		})
	}
	t.Run("declared body beyond the limit", func(t *testing.T) {
		body, ct := multipartBody(t, part{name: "file", file: "big.csv", body: strings.Repeat("x", 40<<20)})
		resp, _ := s.do("POST", "/api/datasets", ct, body)
		if resp.StatusCode != 413 {
			t.Errorf("got %d, want 413", resp.StatusCode)
		}
	})
	if after := s.snapshot(); after != before {
		t.Errorf("the store changed:\nbefore %s\nafter %s", before, after)
	}
}

func TestRelabelAndDelete(t *testing.T) {
	s := newServer(t, t.TempDir(), 1<<20)
	_, body := s.upload("/api/datasets", part{name: "file", file: "t.csv", body: "a,b,c,label:y\n1,2,x,0\n3,4,y,1\n5,6,z,1\n"}, part{name: "drop", body: "c"})
	d := decode[apiDataset](t, body)
	if d.Features != 2 || strings.Join(d.Columns, ",") != "a,b,c,label:y" {
		t.Fatalf("got %+v", d)
	}
	// A refused relabel changes nothing.
	resp, body := s.do("PUT", "/api/datasets/"+d.ID+"/labels", "application/json", strings.NewReader(`{"labels":["a","nope"]}`))
	if resp.StatusCode != 400 || decode[apiErr](t, body).Field != "labels" {
		t.Errorf("relabel to a missing column: got %d %s, want 400 naming labels", resp.StatusCode, body)
	}
	resp, body = s.do("PUT", "/api/datasets/"+d.ID+"/labels", "application/json", strings.NewReader(`{"labels":["b","label:y"],"kind":"multidim"}`))
	if resp.StatusCode != 200 {
		t.Fatalf("relabel: got %d %s", resp.StatusCode, body)
	}
	r := decode[apiDataset](t, body)
	if r.Features != 1 || strings.Join(r.Labels, ",") != "b,y" || r.Kind != "multidim" || r.LabelCardinality != nil {
		t.Errorf("after relabel got %+v, want 1 feature, labels b,y, multidim", r)
	}
	resp, body = s.do("PUT", "/api/datasets/"+d.ID+"/labels", "application/json", strings.NewReader(`{"labels":["b"],"colour":1}`))
	if resp.StatusCode != 400 {
		t.Errorf("relabel with an unknown field: got %d %s, want 400", resp.StatusCode, body)
	}
	if _, body = s.do("GET", "/api/datasets/"+d.ID, "", nil); decode[apiDataset](t, body).Features != 1 {
		t.Errorf("a refused relabel changed the data set: %s", body)
	}
	files, _ := os.ReadDir(filepath.Join(s.dir, "datasets", d.ID))
	if len(files) != 3 {
		t.Errorf("got %d files in the data set directory, want source, one data file and one details file", len(files))
	}
	resp, _ = s.do("DELETE", "/api/datasets/"+d.ID, "", nil)
	if resp.StatusCode != http.StatusNoContent {
		t.Errorf("DELETE: got %d, want 204", resp.StatusCode)
	}
	if resp, _ = s.do("GET", "/api/datasets/"+d.ID, "", nil); resp.StatusCode != 404 {
		t.Errorf("GET after DELETE: got %d, want 404", resp.StatusCode)
	}
	if _, err := os.Stat(filepath.Join(s.dir, "datasets", d.ID)); !os.IsNotExist(err) {
		t.Errorf("the files remain after DELETE: %v", err)
	}
}

// A restart (store closed and opened again) keeps every data set.
func TestRestartKeepsDatasets(t *testing.T) {
	dir := t.TempDir()
	s := newServer(t, dir, 1<<30)
	yeast := sharedDataset(t, "yeast/yeast.csv")
	if resp, body := s.upload("/api/datasets", part{name: "file", file: "yeast.csv", body: string(yeast)}); resp.StatusCode != 201 {
		t.Fatalf("yeast: got %d %s", resp.StatusCode, body)
	}
	if resp, body := s.upload("/api/datasets", part{name: "xml", file: "medical.xml", body: string(sharedDataset(t, "medical/medical.xml"))},
		part{name: "file", file: "medical.arff", body: string(sharedDataset(t, "medical/medical.arff"))}); resp.StatusCode != 201 {
		t.Fatalf("medical: got %d %s", resp.StatusCode, body)
	}
	if resp, body := s.do("POST", "/api/datasets/demo?demo=multidim", "", nil); resp.StatusCode != 201 {
		t.Fatalf("demo: got %d %s", resp.StatusCode, body)
	}
	before := s.snapshot()
	s.close()
	s2 := newServer(t, dir, 1<<30)
	if after := s2.snapshot(); after != before {
		t.Errorf("after a restart:\n%s\nwant\n%s", after, before)
	}
	_, body := s2.do("GET", "/api/datasets", "", nil)
	list := decode[[]apiDataset](t, body)
	if len(list) != 3 {
		t.Fatalf("got %d data sets, want 3", len(list))
	}
	for _, d := range list {
		if d.Name == "yeast" && (d.Rows != 2417 || d.Features != 103 || d.LabelCount != 14) {
			t.Errorf("yeast: got %d×%d with %d labels", d.Rows, d.Features, d.LabelCount)
		}
		if d.Name == "medical" && (d.Rows != 978 || d.Features != 1449 || d.LabelCount != 45) {
			t.Errorf("medical: got %d×%d with %d labels", d.Rows, d.Features, d.LabelCount)
		}
		if d.Labels != nil || d.Columns != nil {
			t.Errorf("%s: the list has labels %q and columns %q, want neither (GET /api/datasets/{id} has them)", d.Name, d.Labels, d.Columns)
		}
	}
}

func TestDemoDatasets(t *testing.T) {
	s := newServer(t, t.TempDir(), 1<<20)
	for _, tc := range []struct {
		demo, kind string
		labels     int
	}{{"multilabel", "multilabel", 6}, {"multidim", "multidim", 3}} {
		resp, body := s.do("POST", "/api/datasets/demo?demo="+tc.demo, "", nil)
		if resp.StatusCode != 201 {
			t.Fatalf("%s: got %d %s", tc.demo, resp.StatusCode, body)
		}
		if d := decode[apiDataset](t, body); d.Kind != tc.kind || len(d.Labels) != tc.labels || d.Rows < 300 {
			t.Errorf("%s: got %+v", tc.demo, d)
		}
	}
	if resp, _ := s.do("POST", "/api/datasets/demo?demo=nope", "", nil); resp.StatusCode != 400 {
		t.Errorf("unknown demo: got %d, want 400", resp.StatusCode)
	}
}

func TestHealthz(t *testing.T) {
	s := newServer(t, t.TempDir(), 1<<20)
	resp, body := s.do("GET", "/healthz", "", nil)
	if resp.StatusCode != 200 || !strings.Contains(string(body), "ok") {
		t.Errorf("got %d %s", resp.StatusCode, body)
	}
}

func TestNMI(t *testing.T) {
	s := newServer(t, t.TempDir(), 1<<20)
	// a, b independent; c = a; d constant.
	csv := "x,label:a,label:b,label:c,label:d\n1,1,1,1,0\n2,1,0,1,0\n3,0,1,0,0\n4,0,0,0,0\n"
	_, body := s.upload("/api/datasets", part{name: "file", file: "n.csv", body: csv})
	id := decode[apiDataset](t, body).ID
	resp, body := s.do("GET", "/api/datasets/"+id+"/nmi.json", "", nil)
	if resp.StatusCode != 200 {
		t.Fatalf("got %d %s", resp.StatusCode, body)
	}
	got := decode[struct {
		Labels   []string    `json:"labels"`
		Matrix   [][]float64 `json:"matrix"`
		Constant []bool      `json:"constant"`
	}](t, body)
	want := [][]float64{{1, 0, 1, 0}, {0, 1, 0, 0}, {1, 0, 1, 0}, {0, 0, 0, 0}}
	for i := range want {
		for j := range want[i] {
			if d := got.Matrix[i][j] - want[i][j]; d > 1e-12 || d < -1e-12 {
				t.Errorf("NMI(%s,%s): got %v, want %v", got.Labels[i], got.Labels[j], got.Matrix[i][j], want[i][j])
			}
		}
	}
	if strings.Join(got.Labels, ",") != "a,b,c,d" || !got.Constant[3] || got.Constant[0] {
		t.Errorf("got labels %v constant %v", got.Labels, got.Constant)
	}
	_, body = s.do("POST", "/api/datasets/demo?demo=multidim", "", nil)
	resp, _ = s.do("GET", "/api/datasets/"+decode[apiDataset](t, body).ID+"/nmi.json", "", nil)
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Errorf("NMI of multi-dimensional data: got %d, want 422", resp.StatusCode)
	}
}

func TestUploadWithFolds(t *testing.T) {
	s := newServer(t, t.TempDir(), 1<<30)
	edm := string(sharedDataset(t, "edm/edm.csv"))
	resp, body := s.upload("/api/datasets", part{name: "file", file: "edm.csv", body: edm},
		part{name: "folds", file: "edm-folds.csv", body: string(sharedDataset(t, "edm/edm-folds.csv"))})
	if resp.StatusCode != 201 {
		t.Fatalf("got %d %s", resp.StatusCode, body)
	}
	if got := decode[struct {
		Folds int `json:"folds"`
	}](t, body).Folds; got != 10 {
		t.Errorf("got %d folds, want 10", got)
	}
	id := decode[apiDataset](t, body).ID
	folds, err := s.store.LoadFolds(id)
	if err != nil || len(folds) != 10 {
		t.Errorf("LoadFolds: %d folds, %v", len(folds), err)
	}
	before := s.snapshot()
	for name, parts := range map[string][]part{
		"folds beyond the rows": {{name: "file", file: "edm.csv", body: edm}, {name: "folds", file: "f.csv", body: "fold,split,row\n1,train,1\n1,test,999\n"}},
		"folds with drop-rows":  {{name: "missing", body: "drop-rows"}, {name: "file", file: "edm.csv", body: edm}, {name: "folds", file: "f.csv", body: "fold,split,row\n1,train,1\n1,test,2\n"}},
	} {
		resp, body := s.upload("/api/datasets", parts...)
		if e := decode[apiErr](t, body); resp.StatusCode != 400 || e.Field != "folds" {
			t.Errorf("%s: got %d %s, want 400 about folds", name, resp.StatusCode, body)
		}
	}
	if s.snapshot() != before {
		t.Error("a refused upload with folds changed the store")
	}
}
