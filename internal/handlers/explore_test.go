package handlers_test

import (
	"encoding/binary"
	"encoding/csv"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"mldr/internal/jobs"
)

// floats decodes float32 little-endian values.
func floats(t *testing.T, b []byte) []float32 {
	t.Helper()
	if len(b)%4 != 0 {
		t.Fatalf("%d bytes are no float32 values", len(b))
	}
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

func TestExploreAPI(t *testing.T) {
	s := newJobServer(t, 1, 0, nil)
	ds := s.demo("multilabel")
	_, body := s.submit(`{"dataset":"` + ds + `","methods":["pca","mddmp"],"params":{"d":3},"split":{"kind":"kfold","folds":3},"evaluate":{"classifier":"ridge"}}`)
	id := body["id"].(string)
	s.waitJob(id, jobs.Succeeded)
	get := func(path string) (*http.Response, []byte) { return s.do("GET", "/api/jobs/"+id+path, "", nil) }

	resp, b := get("/explore")
	meta := decode[struct {
		Rows    int
		Kind    string
		Labels  []string
		Methods []struct {
			ID   string
			D    int
			Rows int
		}
		Colours []struct {
			Key        string
			Type       string
			Categories []string
			Counts     []int
		}
		Features  []string
		LabelSets []struct {
			Labels []string
			Count  int
		} `json:"label_sets"`
	}](t, b)
	if resp.StatusCode != http.StatusOK || meta.Rows != 600 || meta.Kind != "multilabel" || len(meta.Methods) != 2 || meta.Methods[1].Rows != 600 || len(meta.Features) != 24 {
		t.Fatalf("explore: got %d %+v", resp.StatusCode, meta)
	}
	keys := map[string]bool{}
	for _, c := range meta.Colours {
		keys[c.Key] = true
	}
	for _, k := range []string{"count", "set", "label:" + meta.Labels[0], "part", "fold", "error:hamming:pca:3", "error:exact:mddmp:3", "error:hamming:ori:24"} {
		if !keys[k] {
			t.Errorf("explore: no colour %q in %v", k, keys)
		}
	}
	total := 0
	for _, s := range meta.LabelSets {
		total += s.Count
	}
	if total != 600 {
		t.Errorf("label sets count %d rows, want 600", total)
	}

	// The points are projected.csv's components 2 and 3, as float32.
	resp, b = get("/points?method=mddmp&x=2&y=3")
	_, csvBody := get("/projected.csv?method=mddmp")
	rows, err := csv.NewReader(strings.NewReader(string(csvBody))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	pts := floats(t, b)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("X-Rows") != "600" || resp.Header.Get("Content-Type") != "application/octet-stream" || len(pts) != 1200 {
		t.Fatalf("points: got %d %s rows %s, %d floats", resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("X-Rows"), len(pts))
	}
	if rows[0][2] != "fold" || rows[0][4] != "c2" {
		t.Fatalf("projected.csv header %v", rows[0])
	}
	for i, r := range rows[1:] {
		for k, col := range []int{4, 5} {
			want, _ := strconv.ParseFloat(r[col], 64)
			if pts[2*i+k] != float32(want) {
				t.Fatalf("row %d: point %v, projected.csv %v", i, pts[2*i+k], want)
			}
		}
	}
	// Row numbers and values in the same order.
	_, b = get("/values?of=row&method=mddmp")
	numbers := floats(t, b)
	for i, n := range numbers {
		if strconv.Itoa(int(n)) != rows[i+1][0] {
			t.Fatalf("row %d: number %v, projected.csv %s", i, n, rows[i+1][0])
		}
	}
	resp, b = get("/values?of=fold")
	if f := floats(t, b); resp.StatusCode != 200 || strconv.Itoa(int(f[0])+1) != rows[1][2] || resp.Header.Get("X-Max") != "2" {
		t.Errorf("fold values: got %d, first %v (projected.csv %s), max %s", resp.StatusCode, f[0], rows[1][2], resp.Header.Get("X-Max"))
	}
	if resp, b := get("/values?of=feature:" + meta.Features[0]); resp.StatusCode != 200 || len(floats(t, b)) != 600 {
		t.Errorf("feature values: got %d", resp.StatusCode)
	}

	// The per-row errors: their mean is the job's Hamming loss (3 folds of
	// 200 rows, each row tested once).
	_, b = get("/values?of=error:hamming:pca:3")
	hl := floats(t, b)
	sum := 0.0
	for _, v := range hl {
		sum += float64(v)
	}
	_, mb := get("/metrics.json")
	var mean float64
	for _, row := range decode[jobs.MetricsFile](t, mb).Rows {
		if row.Method == "pca" && row.D == 3 && row.Fold == nil {
			mean = row.Metrics["hamming_loss"]
		}
	}
	if len(hl) != 600 || math.Abs(sum/600-mean) > 1e-6 {
		t.Errorf("per-row Hamming loss: %d values, mean %v, metrics.json %v", len(hl), sum/600, mean)
	}

	for _, tc := range []struct {
		path   string
		status int
		says   string
	}{
		{"/values?of=error:hamming:pca:9", 400, "evaluated no pca at d = 9"},
		{"/values?of=error:cubic:pca:3", 400, "error values are error:hamming"},
		{"/points?x=4", 400, "x must be a component of pca, a whole number from 1 to its d = 3"},
		{"/points?method=lda", 400, "lda"},
		{"/values?of=bogus", 400, "no values"},
		{"/values?of=label:nope", 400, "label:nope names no label"},
		{"/values?of=feature:nope", 400, "names no feature"},
		{"/rows/601", 404, "row 601 is not a row"},
		{"/rows/x", 400, "a row is a whole number"},
		{"/rows/1?k=0", 400, "k"},
		{"/selections/nope.csv", 404, "no selection"},
		{"/search?q=nope", 400, "is no label of this job"},
		{"/search?q=", 400, "give a query"},
	} {
		resp, b := get(tc.path)
		if resp.StatusCode != tc.status || !strings.Contains(string(b), tc.says) {
			t.Errorf("%s: got %d %s, want %d with %q", tc.path, resp.StatusCode, b, tc.status, tc.says)
		}
	}

	// Search by labels: the rows whose labels say so.
	resp, b = get("/search?q=" + url.QueryEscape(meta.Labels[0]+" and not "+meta.Labels[1]))
	found := decode[struct {
		Count int
		Rows  []int
	}](t, b)
	if resp.StatusCode != 200 || found.Count == 0 || found.Count != len(found.Rows) {
		t.Errorf("search: got %d %s", resp.StatusCode, b)
	}
	_, b = get("/values?of=label:" + url.QueryEscape(meta.Labels[0]))
	with0 := floats(t, b)
	_, b = get("/values?of=label:" + url.QueryEscape(meta.Labels[1]))
	with1 := floats(t, b)
	want := 0
	for i := range with0 {
		if with0[i] == 1 && with1[i] == 0 {
			want++
		}
	}
	if found.Count != want {
		t.Errorf("search found %d rows, the values say %d", found.Count, want)
	}

	// A row and its neighbours: the nearest in the projection is nearest.
	resp, b = get("/rows/" + rows[1][0] + "?method=pca&k=3")
	row := decode[struct {
		Row        int
		Labels     []string
		Projection []struct {
			Row      int
			Distance float64
		}
		Original []struct{ Row int }
	}](t, b)
	if resp.StatusCode != 200 || len(row.Projection) != 3 || len(row.Original) != 3 || row.Projection[0].Distance > row.Projection[2].Distance {
		t.Fatalf("rows: got %d %s", resp.StatusCode, b)
	}

	post := func(path, body string) (*http.Response, []byte) {
		return s.do("POST", "/api/jobs/"+id+path, "application/json", strings.NewReader(body))
	}
	resp, b = post("/selection", `{"method":"pca","rows":[1,2,3,4,5]}`)
	if resp.StatusCode != 200 || decode[struct{ Count int }](t, b).Count != 5 {
		t.Errorf("selection: got %d %s", resp.StatusCode, b)
	}
	// The rows with the first label: it is the most enriched, every row has it.
	var with []string
	for i, v := range with0 {
		if v == 1 {
			with = append(with, strconv.Itoa(int(numbers[i])))
		}
	}
	resp, b = post("/selection", `{"method":"pca","rows":[`+strings.Join(with, ",")+`]}`)
	sel := decode[struct {
		Count  int
		Labels []struct {
			Label      string
			In         int `json:"in_selection"`
			All        int `json:"overall"`
			Lift, P, Q float64
		}
	}](t, b)
	if resp.StatusCode != 200 || sel.Count != len(with) || len(sel.Labels) != len(meta.Labels) || sel.Labels[0].Label != meta.Labels[0] ||
		sel.Labels[0].In != len(with) || sel.Labels[0].All != len(with) || sel.Labels[0].Lift <= 1 || sel.Labels[0].P > 1e-10 {
		t.Errorf("selection of the rows with %s: got %d %+v", meta.Labels[0], resp.StatusCode, sel)
	}
	for _, tc := range []struct {
		body, says string
		status     int
	}{
		{`{"rows":[1,1]}`, "row 1 is given twice", 422},
		{`{"rows":[0]}`, "row 0 is not a row", 422},
		{`{"rows":"1"}`, "rows", 400},
		{`{"rows":[1],"extra":1}`, "extra", 400},
	} {
		if resp, b := post("/selection", tc.body); resp.StatusCode != tc.status || !strings.Contains(string(b), tc.says) {
			t.Errorf("selection %s: got %d %s, want %d with %q", tc.body, resp.StatusCode, b, tc.status, tc.says)
		}
	}

	// Named selections: kept, listed, downloaded, deleted.
	if resp, b := post("/selections", `{"name":"cluster 1","rows":[9,3,5]}`); resp.StatusCode != 201 {
		t.Fatalf("save: got %d %s", resp.StatusCode, b)
	}
	if resp, b := post("/selections", `{"name":"a/b","rows":[1]}`); resp.StatusCode != 400 || !strings.Contains(string(b), "name") {
		t.Errorf("a bad name: got %d %s", resp.StatusCode, b)
	}
	_, b = get("/selections")
	if !strings.Contains(string(b), `"name": "cluster 1"`) || !strings.Contains(string(b), `"rows": 3`) {
		t.Errorf("list: %s", b)
	}
	resp, b = get("/selections/cluster%201.csv")
	if resp.StatusCode != 200 || string(b) != "row\n3\n5\n9\n" {
		t.Errorf("csv: got %d %q", resp.StatusCode, b)
	}
	// A name with brackets, escaped as a browser's encodeURIComponent does.
	if resp, b := post("/selections", `{"name":"a and b (not c)","rows":[2]}`); resp.StatusCode != 201 {
		t.Fatalf("save: got %d %s", resp.StatusCode, b)
	}
	if resp, b := get("/selections/" + url.PathEscape("a and b (not c)") + ".csv"); resp.StatusCode != 200 || string(b) != "row\n2\n" {
		t.Errorf("csv of a name with brackets: got %d %q", resp.StatusCode, b)
	}
	if resp, _ := s.do("DELETE", "/api/jobs/"+id+"/selections/a%20and%20b%20%28not%20c%29", "", nil); resp.StatusCode != 204 {
		t.Errorf("delete a name with brackets escaped: got %d", resp.StatusCode)
	}
	if resp, _ := s.do("DELETE", "/api/jobs/"+id+"/selections/cluster%201", "", nil); resp.StatusCode != 204 {
		t.Errorf("delete: got %d", resp.StatusCode)
	}
	if resp, _ := s.do("DELETE", "/api/jobs/"+id+"/selections/cluster%201", "", nil); resp.StatusCode != 404 {
		t.Errorf("delete twice: got %d", resp.StatusCode)
	}
}

// With a test data set, its rows are numbered after the training set's.
func TestExploreTestSetNumbers(t *testing.T) {
	s := newJobServer(t, 1, 0, nil)
	train, test := s.demo("multilabel"), s.demo("multilabel")
	_, body := s.submit(`{"dataset":"` + train + `","test_dataset":"` + test + `","method":"pca","params":{"d":2},"evaluate":{"classifier":"ridge"}}`)
	id := body["id"].(string)
	s.waitJob(id, jobs.Succeeded)
	_, b := s.do("GET", "/api/jobs/"+id+"/values?of=row", "", nil)
	n := floats(t, b)
	if len(n) != 1200 || n[0] != 1 || n[599] != 600 || n[600] != 601 || n[1199] != 1200 {
		t.Fatalf("row numbers: %d of them, %v %v %v %v", len(n), n[0], n[599], n[600], n[1199])
	}
	resp, b := s.do("GET", "/api/jobs/"+id+"/rows/601?k=2", "", nil)
	if resp.StatusCode != 200 || !strings.Contains(string(b), `"part": "test"`) {
		t.Errorf("row 601: got %d %s", resp.StatusCode, b)
	}
	_, b = s.do("GET", "/api/jobs/"+id+"/values?of=part", "", nil)
	if p := floats(t, b); p[0] != 0 || p[1199] != 1 {
		t.Errorf("parts: %v … %v", p[0], p[1199])
	}
}

// The points of every kind of method equal its projected.csv to float32
// precision: feature space (pca), label space (cplst), an embedding of
// the fit rows only (mds, with a holdout: fewer rows than the others),
// and lda's blocks.
func TestExplorePointsEveryKind(t *testing.T) {
	s := newJobServer(t, 1, 0, nil)
	ml, md := s.demo("multilabel"), s.demo("multidim")
	for _, tc := range []struct {
		name, body string
		methods    []string
	}{
		{"multi-label", `{"dataset":"` + ml + `","methods":["pca","cplst","mds"],"params":{"d":2},"split":{"kind":"holdout"}}`, []string{"pca", "cplst", "mds"}},
		{"multi-dimensional", `{"dataset":"` + md + `","methods":["sdem","lda"],"params":{"d":1},"split":{"kind":"kfold","folds":3},"evaluate":{"classifier":"ridge"}}`, []string{"sdem", "lda"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, body := s.submit(tc.body)
			id := body["id"].(string)
			s.waitJob(id, jobs.Succeeded)
			for _, m := range tc.methods {
				_, csvBody := s.do("GET", "/api/jobs/"+id+"/projected.csv?method="+m, "", nil)
				rows, err := csv.NewReader(strings.NewReader(string(csvBody))).ReadAll()
				if err != nil {
					t.Fatal(err)
				}
				c1 := slices.Index(rows[0], "c1")
				y := "2"
				if len(rows[0])-c1 < 2 {
					y = "1"
				}
				resp, b := s.do("GET", "/api/jobs/"+id+"/points?method="+m+"&x=1&y="+y, "", nil)
				pts := floats(t, b)
				if resp.StatusCode != 200 || len(pts) != 2*(len(rows)-1) || resp.Header.Get("X-Rows") != strconv.Itoa(len(rows)-1) {
					t.Fatalf("%s: got %d, %d floats for %d rows", m, resp.StatusCode, len(pts), len(rows)-1)
				}
				yc := c1 + 1
				if y == "1" {
					yc = c1
				}
				for i, r := range rows[1:] {
					for k, col := range []int{c1, yc} {
						want, _ := strconv.ParseFloat(r[col], 64)
						if pts[2*i+k] != float32(want) {
							t.Fatalf("%s row %d: point %v, projected.csv %v", m, i, pts[2*i+k], want)
						}
					}
				}
				_, b = s.do("GET", "/api/jobs/"+id+"/values?of=row&method="+m, "", nil)
				if n := floats(t, b); len(n) != len(rows)-1 || strconv.Itoa(int(n[len(n)-1])) != rows[len(rows)-1][0] {
					t.Errorf("%s: row numbers do not follow projected.csv", m)
				}
			}
		})
	}
}
