package handlers_test

import (
	"encoding/csv"
	"math"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"mldr/internal/jobs"
)

// The analysis form offers the preprocessing (none by default), sends it,
// refuses an unknown kind on the form with the field marked, and the job's
// page shows the preprocessing and the methods' times.
func TestAnalyzePreprocess(t *testing.T) {
	s := newJobServer(t, 1, 10, nil)
	ml := s.demo("multilabel")
	doc := s.page("/datasets/" + ml + "/analyze")
	sel := doc.Find(`form[data-testid="analyze-form"] select#preprocess`)
	opts := sel.Find("option").Map(func(_ int, o *goquery.Selection) string { return o.AttrOr("value", "") })
	if got := strings.Join(opts, ","); got != "none,standardize,minmax" {
		t.Errorf("preprocess options: got %q, want none,standardize,minmax", got)
	}
	if v := sel.Find("option[selected]").AttrOr("value", ""); v != "none" {
		t.Errorf("preprocess default: got %q, want none", v)
	}

	f := analysisForm("pca", "mddmp")
	f.Set("preprocess", "zscore")
	resp, body := s.postForm("/datasets/"+ml+"/analyze", f)
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("preprocess=zscore: got %d, want 400", resp.StatusCode)
	}
	bad := parseHTML(t, body)
	if msg := bad.Find("#analyze-error").Text(); !strings.Contains(msg, `Preprocess must be none, standardize or minmax, not "zscore"`) {
		t.Errorf("preprocess=zscore: got error %q, want the three kinds listed", msg)
	}
	if bad.Find("#preprocess").AttrOr("aria-invalid", "") != "true" {
		t.Error("preprocess=zscore: the select is not marked invalid")
	}

	f.Set("preprocess", "standardize")
	id := s.startAnalysis(ml, f)
	j := s.waitJob(id, jobs.Succeeded)
	if j.Request.Preprocess != "standardize" {
		t.Errorf("the job's request: got preprocess %q, want standardize", j.Request.Preprocess)
	}
	page := s.page("/jobs/" + id)
	if settings := page.Find("dl, .settings").Text(); !strings.Contains(settings, "standardize, fitted on the training rows") {
		t.Errorf("the job's settings do not show the preprocessing: %q", settings)
	}
	var rows [][]string
	page.Find(`table[data-testid="times-table"] tbody tr`).Each(func(_ int, tr *goquery.Selection) {
		rows = append(rows, tr.Find("th, td").Map(func(_ int, c *goquery.Selection) string { return strings.TrimSpace(c.Text()) }))
	})
	if len(rows) != 3 || rows[2][0] != "ori" || rows[2][1] != "—" || rows[0][0] != "PCA" {
		t.Fatalf("times table: got %q, want the two methods, then ori without a fit (the metrics table's order)", rows)
	}
	for _, r := range rows {
		for _, c := range r[1:] {
			if r[0] == "ori" && c == "—" {
				continue
			}
			if !strings.HasSuffix(c, " s") {
				t.Errorf("times table row %q: got %q, want a duration in seconds", r[0], c)
			}
		}
	}
}

// POST /api/jobs/{id}/transform applies the job's preprocessing before
// projecting: the data set's own rows come back as projected.csv has them.
func TestTransformPreprocess(t *testing.T) {
	s := newJobServer(t, 1, 10, nil)
	ds := s.demo("multilabel")
	for _, kind := range []string{"minmax", "standardize"} {
		t.Run(kind, func(t *testing.T) {
			resp, body := s.submit(`{"dataset":"` + ds + `","method":"pca","params":{"d":2},"preprocess":"` + kind + `","evaluate":{"classifier":"ridge"}}`)
			if resp.StatusCode != http.StatusAccepted {
				t.Fatalf("submit: got %d %v, want 202", resp.StatusCode, body)
			}
			id := body["id"].(string)
			s.waitJob(id, jobs.Succeeded)
			resp, data := s.do("GET", "/api/datasets/"+ds+"/data.csv", "", nil)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("data.csv: got %d, want 200", resp.StatusCode)
			}
			resp, out := s.upload("/api/jobs/"+id+"/transform", part{name: "file", file: "rows.csv", body: string(data)})
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("transform: got %d %s, want 200", resp.StatusCode, out)
			}
			resp, proj := s.do("GET", "/api/jobs/"+id+"/projected.csv", "", nil)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("projected.csv: got %d, want 200", resp.StatusCode)
			}
			got := readRows(t, out)   // c1,c2 in the file's order
			want := readRows(t, proj) // row,split,c1,c2
			if len(got) != len(want) || len(got) == 0 {
				t.Fatalf("got %d transformed rows, want %d", len(got), len(want))
			}
			for _, w := range want {
				row, _ := strconv.Atoi(w[0])
				g := got[row-1]
				for c := range 2 {
					a, _ := strconv.ParseFloat(g[c], 64)
					b, _ := strconv.ParseFloat(w[2+c], 64)
					if math.Abs(a-b) > 1e-9*max(1, math.Abs(b)) {
						t.Fatalf("row %s c%d: transform gives %v, projected.csv %v", w[0], c+1, a, b)
					}
				}
			}
		})
	}
}

// readRows reads a CSV body without its header.
func readRows(t *testing.T, b []byte) [][]string {
	t.Helper()
	rows, err := csv.NewReader(strings.NewReader(string(b))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows[1:]
}

// A job on a feature too large for float64's sums fails with a sentence
// that names the feature and says its sums overflow, with preprocess
// standardize and minmax as with none (never "constant", nor a NaN in
// row 1); minmax scales ±1e300, whose range float64 holds, and succeeds.
func TestPreprocessOverflowJob(t *testing.T) {
	s := newJobServer(t, 1, 10, nil)
	upload := func(big string) string {
		rows := big + ",0,0,1\n-" + big + ",1,1,0\n" + big + ",2,1,1\n-" + big + ",3,0,0\n"
		return s.uploadCSV("big"+big+".csv", "big,small,label:a,label:b\n"+strings.Repeat(rows, 10))
	}
	for _, big := range []string{"1e308", "1e300"} {
		ds := upload(big)
		for _, tc := range []struct {
			preprocess string
			want       string // in the failed job's error; "" for success
		}{
			{"none", `feature "big" has values up to ` + big[:1] + "e+" + big[2:] + ` in magnitude; with 32 rows the sums of their squares overflow float64`},
			{"standardize", `feature "big" has values up to ` + big[:1] + "e+" + big[2:] + ` in magnitude; with 32 rows the sums of their squares in the standardize scaling overflow float64`},
			{"minmax", map[string]string{"1e308": `feature "big" has values from -1e+308 to 1e+308; their range overflows float64 in the minmax scaling`, "1e300": ""}[big]},
		} {
			t.Run(big+"/"+tc.preprocess, func(t *testing.T) {
				resp, body := s.submit(`{"dataset":"` + ds + `","methods":["pca","mddmp"],"params":{"d":1},"evaluate":{"classifier":"ridge"},"preprocess":"` + tc.preprocess + `"}`)
				if resp.StatusCode != http.StatusAccepted {
					t.Fatalf("submit: got %d %v, want 202", resp.StatusCode, body)
				}
				id := body["id"].(string)
				if tc.want == "" {
					s.waitJob(id, jobs.Succeeded)
					return
				}
				j := s.waitJob(id, jobs.Failed)
				if !strings.Contains(j.Error, tc.want) || strings.Contains(j.Error, "constant") || strings.Contains(j.Error, "NaN") {
					t.Errorf("the job's error: got %q, want it to say %s", j.Error, tc.want)
				}
			})
		}
	}
}
