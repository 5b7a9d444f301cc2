package handlers_test

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"mldr/internal/jobs"
)

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
