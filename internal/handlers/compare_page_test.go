package handlers_test

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"mldr/internal/jobs"
)

// TestComparePageMetrics: the compare page offers only the metrics every
// chosen job reported, says so when the chosen metric is not among them,
// and warns when the jobs ran on different data or splits; it never shows
// a raw error.
func TestComparePageMetrics(t *testing.T) {
	s := newJobServer(t, 1, 10, nil)
	ml, md := s.demo("multilabel"), s.demo("multidim")
	withCPLST := s.startAnalysis(ml, analysisForm("pca", "cplst")) // cplst adds encoding_error, prediction_error, loss_bound
	pcaOnly := s.startAnalysis(ml, analysisForm("pca"))
	f := analysisForm("pca")
	f.Set("seed", "8")
	otherSeed := s.startAnalysis(ml, f)
	f = analysisForm("pca")
	f.Set("split", "kfold")
	f.Set("folds", "3")
	kfold := s.startAnalysis(ml, f)
	mdJob := s.startAnalysis(md, analysisForm("pca"))
	for _, id := range []string{withCPLST, pcaOnly, otherSeed, kfold, mdJob} {
		s.waitJob(id, jobs.Succeeded)
	}
	options := func(doc *goquery.Document) []string {
		return doc.Find(`#metric option`).Map(func(_ int, o *goquery.Selection) string { return o.AttrOr("value", "") })
	}
	selected := func(doc *goquery.Document) string { return doc.Find(`#metric option[selected]`).AttrOr("value", "") }
	warnings := func(doc *goquery.Document) string { return doc.Find(`[data-testid="compare-warnings"]`).Text() }
	// The multi-label metrics, in their order as before, then those of
	// extreme classification.
	common := "hamming_loss ranking_loss one_error coverage average_precision subset_accuracy example_accuracy example_f1 example_precision example_recall micro_f1 macro_f1" +
		" precision_at_1 precision_at_3 precision_at_5 ndcg_at_1 ndcg_at_3 ndcg_at_5" +
		" psprecision_at_1 psprecision_at_3 psprecision_at_5 psndcg_at_1 psndcg_at_3 psndcg_at_5"
	const sameData = "different data sets"
	const sameSplit = "different splits"
	checked := map[string]bool{} // the figure links fetched

	for _, c := range []struct {
		name     string
		jobs     []string
		metric   string
		options  string // the metrics offered, space-separated
		selected string
		curves   int // curve figures drawn
		warn     []string
		noWarn   []string
	}{
		{"one job offers its own metrics", []string{withCPLST}, "loss_bound", common + " encoding_error prediction_error loss_bound", "loss_bound", 1, nil, []string{sameData, sameSplit, "not a metric"}},
		{"common metrics only", []string{withCPLST, pcaOnly}, "", common, "hamming_loss", 2, nil, []string{sameData, sameSplit}},
		{"a metric one job lacks", []string{withCPLST, pcaOnly}, "loss_bound", common, "hamming_loss", 2,
			[]string{`"loss_bound" is not a metric of every chosen job, so the curves show hamming loss, which all of them report.`}, []string{sameData}},
		{"a metric no job has", []string{withCPLST}, "bogus", common + " encoding_error prediction_error loss_bound", "hamming_loss", 1,
			[]string{`"bogus" is not a metric of every chosen job`}, nil},
		{"other seed", []string{pcaOnly, otherSeed}, "ranking_loss", common, "ranking_loss", 2,
			[]string{"The chosen jobs use different splits (holdout, 25% test rows, seed 7; holdout, 25% test rows, seed 8): their numbers are not comparable point for point."}, []string{sameData}},
		{"k-fold against holdout", []string{pcaOnly, kfold}, "", common, "hamming_loss", 2, []string{"3-fold cross-validation, seed 7"}, nil},
		{"other data, no metric in common", []string{withCPLST, mdJob}, "hamming_loss", "", "", 0,
			[]string{sameData, "The chosen jobs have no metric in common (multi-label and multi-dimensional data are scored by different metrics), so no curves are shown"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			q := url.Values{"jobs": c.jobs}
			if c.metric != "" {
				q.Set("metric", c.metric)
			}
			doc := s.page("/compare?" + q.Encode())
			if got := strings.Join(options(doc), " "); got != c.options {
				t.Errorf("got metrics offered %q, want %q", got, c.options)
			}
			if got := selected(doc); got != c.selected {
				t.Errorf("got metric selected %q, want %q", got, c.selected)
			}
			if got := doc.Find(`figure[id^="curves-"] svg`).Length(); got != c.curves {
				t.Errorf("got %d curve figures, want %d", got, c.curves)
			}
			w := warnings(doc)
			for _, want := range c.warn {
				if !strings.Contains(w, want) {
					t.Errorf("got warnings %q, want one saying %q", w, want)
				}
			}
			for _, not := range c.noWarn {
				if strings.Contains(w, not) {
					t.Errorf("got warnings %q, want none saying %q", w, not)
				}
			}
			if n := doc.Find(`[data-testid="no-figure"]`).Text(); strings.Contains(n, "plots:") || strings.Contains(n, "Series") {
				t.Errorf("the page shows a raw error: %q", n)
			}
			// Every figure's own links answer (each link once: the pages
			// share most figures, and a PNG takes long under -race).
			doc.Find(`figure a[href^="/api/"]`).Each(func(_ int, a *goquery.Selection) {
				href := a.AttrOr("href", "")
				if checked[href] {
					return
				}
				checked[href] = true
				if resp, _ := s.do("GET", href, "", nil); resp.StatusCode != http.StatusOK {
					t.Errorf("%s: got status %d, want 200", href, resp.StatusCode)
				}
			})
		})
	}
}

// TestCompareProjectionsOwnAxes: PCA's projection of the demo spans about
// ±80, MDDM's (orthonormal projected features) about ±0.2; on shared axes
// MDDM's would be a dot. Each projection fits its own points, while the
// curves still share their vertical axis.
func TestCompareProjectionsOwnAxes(t *testing.T) {
	s := newJobServer(t, 1, 10, nil)
	ml := s.demo("multilabel")
	f := analysisForm("pca", "mddmf")
	f.Set("dim_mode", "d")
	f.Set("d", "3")
	a := s.startAnalysis(ml, f)
	b := s.startAnalysis(ml, analysisForm("pca"))
	s.waitJob(a, jobs.Succeeded)
	s.waitJob(b, jobs.Succeeded)
	doc := s.page("/compare?jobs=" + a + "&jobs=" + b)

	type meta struct {
		XMin, XMax, YMin, YMax float64
		Points                 []struct{ X, Y float64 }
	}
	read := func(sel *goquery.Selection) meta {
		var m meta
		if err := json.Unmarshal([]byte(sel.AttrOr("data-meta", "")), &m); err != nil {
			t.Fatalf("%s: data-meta: %v", sel.AttrOr("id", ""), err)
		}
		return m
	}
	spans := map[string]float64{}
	doc.Find(`figure[id^="projection-"]`).Each(func(_ int, fig *goquery.Selection) {
		id := fig.AttrOr("id", "")
		m := read(fig)
		if len(m.Points) == 0 {
			t.Fatalf("%s: no points", id)
		}
		lo, hi := [2]float64{math.Inf(1), math.Inf(1)}, [2]float64{math.Inf(-1), math.Inf(-1)}
		for _, p := range m.Points {
			lo = [2]float64{min(lo[0], p.X), min(lo[1], p.Y)}
			hi = [2]float64{max(hi[0], p.X), max(hi[1], p.Y)}
		}
		// The points fill most of each axis (gonum pads and rounds the range).
		if fx, fy := (hi[0]-lo[0])/(m.XMax-m.XMin), (hi[1]-lo[1])/(m.YMax-m.YMin); fx < 0.5 || fy < 0.5 {
			t.Errorf("%s: got points over %.3g of the x axis [%g, %g] and %.3g of the y axis [%g, %g], want at least half of each",
				id, fx, m.XMin, m.XMax, fy, m.YMin, m.YMax)
		}
		spans[strings.TrimPrefix(id, "projection-")] = m.XMax - m.XMin
	})
	if len(spans) != 3 {
		t.Fatalf("got %d projections, want 3", len(spans))
	}
	if p, q := spans[a+"-pca"], spans[a+"-mddmf"]; !(p > 100*q) {
		t.Errorf("got x spans PCA %g and MDDM %g, want them on their own scales (PCA's > 100 × MDDM's)", p, q)
	}
	var curves []string
	doc.Find(`figure[id^="curves-"]`).Each(func(_ int, fig *goquery.Selection) {
		m := read(fig)
		curves = append(curves, fmt.Sprint(m.YMin, " ", m.YMax))
	})
	if len(curves) != 2 || curves[0] != curves[1] {
		t.Errorf("got curve y ranges %q, want the same for both jobs", curves)
	}
}
