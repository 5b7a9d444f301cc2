package handlers

import (
	"net/url"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot/vg"

	"mldr/internal/plots"
	"mldr/internal/views"
)

// parsePlotQuery reads the plot options of q (views.PlotOptions: the
// method, the two components, what colours the points, a log scale, the
// metric, the d axis). An option given with a
// value it cannot take is a 400 naming the option, the value and what it
// may be; an absent (or empty) option keeps its default. What depends on
// the job (a component above a method's d, a metric it did not report,
// a label it does not have) is checked where the job is known.
func parsePlotQuery(q url.Values) (views.PlotOptions, error) {
	p := views.PlotOptions{Method: q.Get("method"), Colour: q.Get("colour"), Metric: q.Get("metric"), DAxis: q.Get("daxis")}
	if p.DAxis != "" && p.DAxis != "linear" && p.DAxis != "log" {
		return p, badRequest("daxis", "daxis must be linear or log, not %q", views.CutName(p.DAxis))
	}
	switch v := q.Get("log"); v {
	case "", "0":
	case "1":
		p.Log = true
	default:
		return p, badRequest("log", "log must be 1 (a logarithmic scale for spectra) or 0, not %q", views.CutName(v))
	}
	var err error
	if p.X, err = component(q, "x"); err != nil {
		return p, err
	}
	if p.Y, err = component(q, "y"); err != nil {
		return p, err
	}
	return p, nil
}

// component reads the projection axis name ("x" or "y"): a component
// number from 1, or 0 when absent.
func component(q url.Values, name string) (int, error) {
	s := q.Get(name)
	if s == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, badRequest(name, "%s must be a component number, a whole number from 1 to the method's d, not %q", name, views.CutName(s))
	}
	return n, nil
}

// figureFile is how a figure's file is asked for, beside what it shows.
type figureFile struct {
	// download asks for an attachment.
	download bool
	// width is the printed width (plots.Figure.ForPrint); 0 keeps the
	// figure's own size.
	width vg.Length
}

// parseFigureFile reads ?download= and ?width= (see figureWidth), which
// every figure's file takes.
func parseFigureFile(q url.Values) (figureFile, error) {
	var f figureFile
	switch v := q.Get("download"); v {
	case "", "0":
	case "1":
		f.download = true
	default:
		return f, badRequest("download", "download must be 1 (save the file) or 0, not %q", views.CutName(v))
	}
	var err error
	f.width, err = figureWidth(q.Get("width"))
	return f, err
}

// printUnits are the units a ?width= length may be written in.
var printUnits = map[string]vg.Length{"in": vg.Inch, "cm": vg.Centimeter, "mm": vg.Millimeter, "pt": 1}

// figureWidth reads a figure's ?width=: "" keeps the figure's own size;
// column and page are plots.ColumnWidth and plots.PageWidth; a length is a
// decimal number and its unit (3.5in, 8.4cm, 89mm, 252pt) from
// plots.MinPrintWidth to plots.MaxPrintWidth. Anything else is a 400
// naming the parameter and what it may be.
func figureWidth(s string) (vg.Length, error) {
	switch s {
	case "":
		return 0, nil
	case "column":
		return plots.ColumnWidth, nil
	case "page":
		return plots.PageWidth, nil
	}
	num := strings.TrimRight(s, "abcdefghijklmnopqrstuvwxyz")
	unit, ok := printUnits[s[len(num):]]
	v, err := strconv.ParseFloat(num, 64)
	w := vg.Length(v) * unit
	if !ok || err != nil || strings.Trim(num, "0123456789.") != "" || w < plots.MinPrintWidth || w > plots.MaxPrintWidth {
		return 0, badRequest("width", "width must be column (%s), page (%s) or a length from %s to %s with its unit, in, cm, mm or pt (3.5in, 8.4cm, 89mm), not %q",
			inches(plots.ColumnWidth), inches(plots.PageWidth), inches(plots.MinPrintWidth), inches(plots.MaxPrintWidth), views.CutName(s))
	}
	return w, nil
}

// inches writes a length in inches: "3.3in".
func inches(l vg.Length) string { return strconv.FormatFloat(float64(l/vg.Inch), 'g', 4, 64) + "in" }

// nemenyiAlphas are the levels a critical difference is shown at.
var nemenyiAlphas = []string{"0.05", "0.10"}

// parseStudyQuery reads a study's choices of q: the comparison (metric and
// d-choice), the α of the critical difference, the data set whose curves
// are shown. Whether the study has them is checked where it is known.
func parseStudyQuery(q url.Values) (views.StudyOptions, error) {
	s := views.StudyOptions{Metric: q.Get("metric"), D: q.Get("d"), Percent: q.Get("percent"), Alpha: q.Get("alpha"), Dataset: q.Get("dataset")}
	// The page's control gives the d-choice as at=own, at=d:N or at=percent:P.
	switch kind, val, _ := strings.Cut(q.Get("at"), ":"); kind {
	case "", "own":
	case "d":
		s.D = val
	case "percent":
		s.Percent = val
	default:
		return s, badRequest("at", "at must be own, d:N or percent:P, not %q", q.Get("at"))
	}
	if s.Alpha == "" {
		s.Alpha = nemenyiAlphas[0]
	}
	if !slices.Contains(nemenyiAlphas, s.Alpha) {
		return s, badRequest("alpha", "alpha must be 0.05 or 0.10, not %q", s.Alpha)
	}
	return s, nil
}
