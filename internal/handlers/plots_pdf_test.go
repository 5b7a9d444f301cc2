package handlers_test

import (
	"bytes"
	"image/png"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"mldr/internal/jobs"
	"mldr/internal/pdftest"
	"mldr/internal/plots"
)

// pdfDPI is the resolution the tests render PDFs at.
const pdfDPI = 100

// svgWidth matches the width of a figure's SVG, in points.
var svgWidth = regexp.MustCompile(`<svg[^>]* width="([0-9.]+)pt"`)

// TestFigurePDF asks every figure endpoint (a job's curves, spectrum and
// projection; a study's critical-difference diagram, ranks and a data
// set's curves; a data set's label frequency, NMI heatmap and rank–
// frequency plot) for its PDF at its own size, a column and a page wide,
// and looks at each as poppler renders it: application/pdf, as wide as the
// SVG at its own size or as asked, not blank, its fonts embedded.
func TestFigurePDF(t *testing.T) {
	pdftest.Require(t)
	s := newJobServer(t, 1, 10, nil)
	ml := s.demo("multilabel")
	f := analysisForm("pca", "cplst")
	f.Set("dim_mode", "d")
	f.Set("d", "3")
	job := s.startAnalysis(ml, f)
	ids := s.uploadStudySets(3)
	resp, body := s.submit(`{"datasets":["` + strings.Join(ids, `","`) + `"],"methods":["pca","mddmp"],"params":{"d":2},"split":{"kind":"kfold","folds":3},"evaluate":{"classifier":"ridge"}}`)
	if resp.StatusCode != 202 {
		t.Fatalf("submitting the study: got %d %v, want 202", resp.StatusCode, body)
	}
	study := body["id"].(string)
	s.waitJob(job, jobs.Succeeded)
	s.waitJob(study, jobs.Succeeded)
	// The study's page links the diagram's PDFs as the other pages do.
	checkFigure(t, s, s.page("/jobs/"+study+"?metric=hamming_loss").Find("figure#cd"), "critical-difference diagram")

	for _, fig := range []struct{ name, path, query string }{
		{"job curves", "/api/jobs/" + job + "/plots/curves", ""},
		{"spectrum", "/api/jobs/" + job + "/plots/spectrum", "method=pca&log=1"},
		{"projection", "/api/jobs/" + job + "/plots/projection", "method=cplst&colour=set"},
		{"cd", "/api/jobs/" + study + "/plots/cd", "metric=hamming_loss&alpha=0.10"},
		{"ranks", "/api/jobs/" + study + "/plots/ranks", ""},
		{"study curves", "/api/jobs/" + study + "/plots/curves", "dataset=" + ids[1]},
		{"labels", "/api/datasets/" + ml + "/plots/labels", ""},
		{"nmi", "/api/datasets/" + ml + "/plots/nmi", ""},
		{"rank", "/api/datasets/" + ml + "/plots/rank", ""},
	} {
		t.Run(fig.name, func(t *testing.T) {
			resp, svg := s.do("GET", fig.path+".svg?"+fig.query, "", nil)
			m := svgWidth.FindSubmatch(svg)
			if resp.StatusCode != 200 || m == nil {
				t.Fatalf("%s.svg: got %d %.200s, want an SVG with its width in pt", fig.path, resp.StatusCode, svg)
			}
			own, _ := strconv.ParseFloat(string(m[1]), 64)
			for _, c := range []struct {
				width  string
				inches float64
			}{{"&width=", own / 72}, {"&width=column", 3.3}, {"&width=page", 7}, {"&width=89mm", 89 / 25.4}} {
				path := fig.path + ".pdf?" + fig.query + c.width
				resp, pdf := s.do("GET", path, "", nil)
				if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/pdf" {
					t.Fatalf("%s: got %d %s %.200q, want 200 application/pdf", path, resp.StatusCode, resp.Header.Get("Content-Type"), pdf)
				}
				t.Run(strings.TrimPrefix(c.width, "&"), func(t *testing.T) {
					pdftest.Open(t, pdf, pdfDPI).Check(t, int(math.Round(c.inches*pdfDPI)))
				})
			}
		})
	}
}

// TestFigureWidthAPI: ?width= sizes a figure's PNG and SVG as its PDF,
// and a width no paper has, or a format no figure has, is refused with the
// sentence saying what may be asked.
func TestFigureWidthAPI(t *testing.T) {
	s := newJobServer(t, 1, 10, nil)
	ml := s.demo("multilabel")
	plotsURL := "/api/datasets/" + ml + "/plots/"

	resp, b := s.do("GET", plotsURL+"labels.png?width=column", "", nil)
	img, err := png.Decode(bytes.NewReader(b))
	if resp.StatusCode != 200 || err != nil {
		t.Fatalf("labels.png?width=column: got %d, %v", resp.StatusCode, err)
	}
	if got, want := img.Bounds().Dx(), int(math.Round(3.3*plots.PNGDPI)); got < want-1 || got > want+1 {
		t.Errorf("labels.png?width=column is %d px wide, want %d (3.3 in at %d dpi)", got, want, plots.PNGDPI)
	}
	if _, b := s.do("GET", plotsURL+"labels.svg?width=page", "", nil); !bytes.Contains(b, []byte(`width="504pt"`)) {
		t.Errorf("labels.svg?width=page: got %.300s, want an SVG 504pt (7 in) wide", b)
	}
	resp, _ = s.do("GET", plotsURL+"nmi.pdf?width=column&download=1", "", nil)
	if cd := resp.Header.Get("Content-Disposition"); resp.StatusCode != 200 || !strings.Contains(cd, `nmi.pdf`) {
		t.Errorf("nmi.pdf?download=1: got %d, Content-Disposition %q; want 200, an attachment nmi.pdf", resp.StatusCode, cd)
	}

	for _, c := range []struct {
		path   string
		status int
		field  string
		msg    string
	}{
		{plotsURL + "labels.pdf?width=9in", 400, "width", `width must be column (3.3in), page (7in) or a length from 2.5in to 8in with its unit, in, cm, mm or pt (3.5in, 8.4cm, 89mm), not "9in"`},
		{plotsURL + "nmi.png?width=wide", 400, "width", `not "wide"`},
		{plotsURL + "labels.svg?width=3.3", 400, "width", `not "3.3"`},
		{plotsURL + "labels.eps", 404, "", "plots are NAME.svg, NAME.png or NAME.pdf"},
		{plotsURL + "labels.PDF", 404, "", "plots are NAME.svg, NAME.png or NAME.pdf"},
	} {
		t.Run(c.path, func(t *testing.T) {
			resp, body := s.do("GET", c.path, "", nil)
			if resp.StatusCode != c.status {
				t.Fatalf("got status %d, want %d: %.300s", resp.StatusCode, c.status, body)
			}
			if e := decode[apiErr](t, body); !strings.Contains(e.Error, c.msg) || e.Field != c.field {
				t.Errorf("got error %q (field %q), want one with %q (field %q)", e.Error, e.Field, c.msg, c.field)
			}
		})
	}
}
