package handlers_test

import (
	"fmt"
	"math/rand/v2"
	"net/url"
	"strings"
	"testing"

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
