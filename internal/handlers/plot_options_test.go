package handlers_test

import (
	"strings"
	"testing"

	"mldr/internal/jobs"
)

// TestPlotOptionsRefused asks every figure endpoint, and the job pages
// that read the same options, for each option with a value it cannot
// take: a 400 naming the option, the value and what it may be, never a
// silent default or a 500. Absent options keep their defaults.
func TestPlotOptionsRefused(t *testing.T) {
	s := newJobServer(t, 1, 10, nil)
	ml, md := s.demo("multilabel"), s.demo("multidim")
	f := analysisForm("pca", "cplst")
	f.Set("dim_mode", "d")
	f.Set("d", "3")
	mlJob := s.startAnalysis(ml, f)
	f = analysisForm("pca")
	f.Set("dim_mode", "d")
	f.Set("d", "1")
	oneD := s.startAnalysis(ml, f)
	f = analysisForm("pca")
	f.Set("grid", "1, 2")
	mdJob := s.startAnalysis(md, f)
	for _, id := range []string{mlJob, oneD, mdJob} {
		s.waitJob(id, jobs.Succeeded)
	}
	mlPlots, mdPlots := "/api/jobs/"+mlJob+"/plots/", "/api/jobs/"+mdJob+"/plots/"
	mdMetrics := "hamming_score, exact_match, sub_exact_match"

	for _, c := range []struct {
		path   string
		status int
		field  string
		msg    string // the error holds this
	}{
		// curves: metric, daxis
		{mlPlots + "curves.svg?metric=bogus", 400, "metric", `metric "bogus" is not one of this job's metrics; they are hamming_loss, ranking_loss, one_error, coverage, average_precision`},
		{mdPlots + "curves.svg?metric=hamming_loss", 400, "metric", `metric "hamming_loss" is not one of this job's metrics; they are ` + mdMetrics},
		{mdPlots + "curves.png?metric=ranking_loss", 400, "metric", `they are ` + mdMetrics},
		{mlPlots + "curves.svg?daxis=cubic", 400, "daxis", `daxis must be linear or log, not "cubic"`},
		{mlPlots + "curves.svg?daxis=LOG", 400, "daxis", `daxis must be linear or log, not "LOG"`},
		// projection: x, y, colour, method
		{mlPlots + "projection.svg?method=pca&x=1&y=99", 400, "y", `y = 99 is not a component of PCA, which keeps d = 3; y must be from 1 to 3`},
		{mlPlots + "projection.svg?method=pca&x=4", 400, "x", `x = 4 is not a component of PCA, which keeps d = 3; x must be from 1 to 3`},
		{mlPlots + "projection.svg?method=pca&x=0", 400, "x", `x must be a component number, a whole number from 1 to the method's d, not "0"`},
		{mlPlots + "projection.svg?method=pca&y=-1", 400, "y", `y must be a component number, a whole number from 1 to the method's d, not "-1"`},
		{mlPlots + "projection.svg?method=pca&x=1.5", 400, "x", `not "1.5"`},
		{mlPlots + "projection.svg?method=pca&y=two", 400, "y", `not "two"`},
		{"/api/jobs/" + oneD + "/plots/projection.svg?y=2", 400, "y", `y = 2 is not a component of PCA, which keeps d = 1; y must be from 1 to 1`},
		{mlPlots + "projection.svg?method=pca&colour=rainbow", 400, "colour", `colour must be count, set or label:NAME (NAME a label) for this job's multi-label data, not "rainbow"`},
		{mlPlots + "projection.svg?method=pca&colour=class:size", 400, "colour", `colour must be count, set or label:NAME`},
		{mlPlots + "projection.svg?method=pca&colour=label:nope", 400, "colour", `colour "label:nope" names no label of this job; its labels are "beach", "sunset", "sea", "mountain", "forest", "urban"`},
		{mdPlots + "projection.svg?colour=count", 400, "colour", `colour must be set or class:NAME (NAME a class variable) for this job's multi-dimensional data, not "count"`},
		{mdPlots + "projection.svg?colour=class:weight", 400, "colour", `colour "class:weight" names no class variable of this job; its class variables are "size", "colour", "finish"`},
		{mlPlots + "projection.svg?method=lda", 400, "method", `method "lda" is not one of this job's methods; they are pca, cplst`},
		{mlPlots + "projection.svg", 400, "method", `this job ran several methods: add ?method= one of pca, cplst`},
		// spectrum: log
		{mlPlots + "spectrum.svg?method=pca&log=yes", 400, "log", `log must be 1 (a logarithmic scale for spectra) or 0, not "yes"`},
		{mlPlots + "spectrum.svg?method=pca&log=true", 400, "log", `not "true"`},
		// every figure: download
		{mlPlots + "spectrum.svg?method=pca&download=yes", 400, "download", `download must be 1 (save the file) or 0, not "yes"`},
		{"/api/datasets/" + ml + "/plots/labels.svg?download=2", 400, "download", `download must be 1 (save the file) or 0, not "2"`},
		{"/api/datasets/" + ml + "/plots/nmi.png?download=true", 400, "download", `not "true"`},
		{"/api/datasets/" + ml + "/plots/labels.svg?labels=nope", 400, "labels", `"nope" is not one of the 6 labels of this data set`},
		// The job pages read the same options.
		{"/jobs/" + mlJob + "?daxis=cubic", 400, "", `Daxis must be linear or log, not &#34;cubic&#34;`},
		{"/jobs/" + mlJob + "?metric=bogus", 400, "", `Metric &#34;bogus&#34; is not one of this job&#39;s metrics`},
		{"/jobs/" + mlJob + "?x=99", 400, "", `X = 99 is not a component of this job&#39;s methods; x must be from 1 to 3`},
		{"/jobs/" + mlJob + "/results?log=2", 400, "", `Log must be 1`},
		{"/jobs/" + mdJob + "/results?metric=hamming_loss", 400, "", `they are ` + mdMetrics},

		// Absent or valid options: the defaults, 200.
		{mlPlots + "curves.svg", 200, "", ""},
		{mlPlots + "curves.png?metric=coverage&daxis=log&download=1", 200, "", ""},
		{mdPlots + "curves.svg?metric=exact_match", 200, "", ""},
		{mlPlots + "projection.svg?method=cplst", 200, "", ""},
		{mlPlots + "projection.svg?method=pca&x=3&y=1&colour=label:sea", 200, "", ""},
		{"/api/jobs/" + oneD + "/plots/projection.svg", 200, "", ""},
		{"/api/jobs/" + oneD + "/plots/projection.svg?x=1&y=1", 200, "", ""},
		{mdPlots + "projection.svg?colour=class:size", 200, "", ""},
		{mlPlots + "spectrum.svg?method=pca&log=1&download=0", 200, "", ""},
		{mlPlots + "spectrum.svg?method=cplst&log=0&daxis=&x=", 200, "", ""},
		{"/api/datasets/" + ml + "/plots/labels.svg?download=1", 200, "", ""},
		{"/jobs/" + mlJob + "?x=3&y=2&daxis=linear&log=0&metric=loss_bound", 200, "", ""},
		{"/jobs/" + oneD + "?x=2&y=2", 200, "", ""}, // the page offers components 1 and 2 even at d = 1
	} {
		t.Run(c.path, func(t *testing.T) {
			resp, body := s.do("GET", c.path, "", nil)
			if resp.StatusCode != c.status {
				t.Fatalf("got status %d, want %d: %.300s", resp.StatusCode, c.status, body)
			}
			if c.status == 200 {
				return
			}
			if !strings.HasPrefix(c.path, "/api/") {
				if !strings.Contains(string(body), c.msg) {
					t.Errorf("got page %.2000s\nwant it to say %q", body, c.msg)
				}
				return
			}
			e := decode[apiErr](t, body)
			if !strings.Contains(e.Error, c.msg) || e.Field != c.field {
				t.Errorf("got error %q (field %q), want one with %q (field %q)", e.Error, e.Field, c.msg, c.field)
			}
		})
	}
}
