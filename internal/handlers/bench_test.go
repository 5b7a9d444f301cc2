package handlers_test

import (
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"mldr/internal/jobs"
)

// benchCSV is a multi-label CSV of n rows, d features and q labels; label
// j follows feature j.
func benchCSV(n, d, q int) string {
	rng := rand.New(rand.NewPCG(3, 4))
	var b strings.Builder
	for j := range d {
		fmt.Fprintf(&b, "f%d,", j)
	}
	for j := range q {
		fmt.Fprintf(&b, "label:l%d", j)
		if j < q-1 {
			b.WriteByte(',')
		}
	}
	b.WriteByte('\n')
	row := make([]float64, d)
	for range n {
		for j := range d {
			row[j] = rng.NormFloat64()
			fmt.Fprintf(&b, "%.4f,", row[j])
		}
		for j := range q {
			v := 0
			if row[j]+0.5*rng.NormFloat64() > 0.3 {
				v = 1
			}
			fmt.Fprintf(&b, "%d", v)
			if j < q-1 {
				b.WriteByte(',')
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// BenchmarkJobResultsPage measures the job page a user opens and redraws
// (each colour change renders it again): 20 000 rows, 100 features, 10
// labels, three methods, every projection capped at the plots' point limit.
// Measured: about 0.1 s and 130 MB allocated per page (2 cores), from 0.29 s
// and 276 MB before the projected rows were read column-wise and the data
// set once per page. Target: under 0.25 s and 200 MB.
func BenchmarkJobResultsPage(b *testing.B) {
	s := newJobServer(b, 2, 10, nil)
	_, body := s.upload("/api/datasets", part{name: "file", file: "bench.csv", body: benchCSV(20000, 100, 10)})
	id := decode[apiDataset](b, body).ID
	f := analysisForm("pca", "mddmp", "cplst")
	f.Set("classifier", "none")
	job := s.startAnalysis(id, f)
	s.waitJob(job, jobs.Succeeded)
	for _, colour := range []string{"count", "set", "label:l3"} {
		b.Run(colour, func(b *testing.B) {
			path := "/jobs/" + job + "?colour=" + url.QueryEscape(colour)
			var size int
			for b.Loop() {
				resp, body := s.do("GET", path, "", nil)
				if resp.StatusCode != 200 {
					b.Fatalf("%s: %d", path, resp.StatusCode)
				}
				size = len(body)
			}
			b.ReportMetric(float64(size), "page-bytes")
		})
	}
}

// sparseLabelsCSV is a CSV of n rows, 4 features and q labels, each row
// having about four of them (label j with probability ∝ 1/(j+1)).
func sparseLabelsCSV(n, q int) string {
	rng := rand.New(rand.NewPCG(5, 6))
	var b strings.Builder
	b.Grow(n * (2*q + 40))
	b.WriteString("f0,f1,f2,f3")
	for j := range q {
		fmt.Fprintf(&b, ",label:l%d", j)
	}
	b.WriteByte('\n')
	h := 0.0
	for j := range q {
		h += 1 / float64(j+1)
	}
	for range n {
		for j := range 4 {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.FormatFloat(rng.NormFloat64(), 'f', 3, 64))
		}
		for j := range q {
			if rng.Float64() < 4/(h*float64(j+1)) {
				b.WriteString(",1")
			} else {
				b.WriteString(",0")
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// BenchmarkSelectionEndpoint measures POST /api/jobs/{id}/selection as the
// explorer sends it, over HTTP: a job of N = 1 000 000 rows and 100 labels
// (about 4 a row), a selection of 100 000 rows. The first request reads
// the job's files into the view cache (not timed); each timed request
// decodes the row numbers, maps them to rows and computes the statistics.
// Target: under 100 ms a request. Set MLDR_BENCH_ROWS for another N.
func BenchmarkSelectionEndpoint(b *testing.B) {
	n := 1_000_000
	if s := os.Getenv("MLDR_BENCH_ROWS"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	s := newJobServer(b, 1, 10, nil)
	_, body := s.upload("/api/datasets", part{name: "file", file: "sparse.csv", body: sparseLabelsCSV(n, 100)})
	ds := decode[apiDataset](b, body).ID
	_, job := s.submit(`{"dataset":"` + ds + `","method":"pca","params":{"d":2}}`)
	id := job["id"].(string)
	s.waitJobWithin(id, jobs.Succeeded, 5*time.Minute)
	rows := make([]string, 0, n/10)
	for r := 1; r <= n; r += 10 {
		rows = append(rows, strconv.Itoa(r))
	}
	sel := `{"method":"pca","rows":[` + strings.Join(rows, ",") + `]}`
	post := func() {
		resp, b2 := s.do("POST", "/api/jobs/"+id+"/selection", "application/json", strings.NewReader(sel))
		if resp.StatusCode != 200 {
			b.Fatalf("selection: got %d %.300s", resp.StatusCode, b2)
		}
	}
	post() // fills the view cache
	b.ResetTimer()
	for b.Loop() {
		post()
	}
}

// BenchmarkListWideDatasets measures GET /api/datasets and the home page
// with 1 000 data sets, each a libsvm file that declares 2 000 000 labels
// over 2 rows: the list reads the records alone, which stay small
// whatever the data sets' width. Target: under 100 ms an answer.
func BenchmarkListWideDatasets(b *testing.B) {
	s := newServer(b, b.TempDir(), 1<<20)
	for i := range 1000 {
		if resp, body := s.upload("/api/datasets", part{name: "file", file: fmt.Sprintf("wide-%d.svm", i), body: "2 3 2000000\n0 1:1\n5 2:1\n"}); resp.StatusCode != 201 {
			b.Fatalf("upload %d: got %d %s", i, resp.StatusCode, body)
		}
	}
	for _, path := range []string{"/api/datasets", "/"} {
		b.Run(strings.Trim(path, "/")+"_", func(b *testing.B) {
			var n int
			for b.Loop() {
				resp, body := s.do("GET", path, "", nil)
				if resp.StatusCode != 200 {
					b.Fatalf("GET %s: %d", path, resp.StatusCode)
				}
				n = len(body)
			}
			b.ReportMetric(float64(n), "bytes/answer")
		})
	}
}
