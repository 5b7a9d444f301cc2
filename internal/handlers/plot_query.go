package handlers

import (
	"net/url"
	"slices"
	"strconv"
	"strings"

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

// downloadFlag reads ?download=: 1 asks for an attachment, 0 or absent
// not.
func downloadFlag(q url.Values) (bool, error) {
	switch v := q.Get("download"); v {
	case "", "0":
		return false, nil
	case "1":
		return true, nil
	default:
		return false, badRequest("download", "download must be 1 (save the file) or 0, not %q", views.CutName(v))
	}
}

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
