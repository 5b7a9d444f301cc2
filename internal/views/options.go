package views

import (
	"cmp"
	"net/url"
	"strconv"

	"mldr/internal/jobs"
)

// PlotOptions are what a job's plots can be asked: the method, the two
// components, what colours the points, a log scale, the metric. The
// handlers read them from the query; what depends on the job (a
// component above a method's d, a metric it did not report, a label it
// does not have) is checked here, where the job is known.
type PlotOptions struct {
	Method string
	// X and Y are the components on the projection's axes, from 1; 0
	// when not given (then 1 and 2, or 1 and 1 for a method of d = 1).
	X, Y   int
	Colour string
	Log    bool
	Metric string
	// DAxis is the curves' d axis: "linear", "log", or "" to choose (log
	// when the values of d span a factor of 20 or more).
	DAxis string
}

// components resolves the projection's components for a method keeping d
// of them: the ones asked for, else 1 and 2 (1 and 1 when d = 1).
func (p PlotOptions) components(d int) (x, y int) {
	return cmp.Or(p.X, 1), cmp.Or(p.Y, min(2, d))
}

// checkComponents refuses components above a method's d, naming them.
func (p PlotOptions) checkComponents(m jobs.MethodResult) error {
	d := m.Eigen.D
	for _, c := range []struct {
		name string
		v    int
	}{{"x", p.X}, {"y", p.Y}} {
		if c.v > d {
			return badOption(c.name, "%s = %d is not a component of %s, which keeps d = %d; %s must be from 1 to %d",
				c.name, c.v, MethodName(m.Method), d, c.name, d)
		}
	}
	return nil
}

// Values is the query that asks for the figure name ("spectrum",
// "projection" or "curves") with these options.
func (p PlotOptions) Values(name string) url.Values {
	v := url.Values{}
	switch name {
	case "spectrum":
		v.Set("method", p.Method)
		if p.Log {
			v.Set("log", "1")
		}
	case "projection":
		v.Set("method", p.Method)
		if p.X > 0 {
			v.Set("x", strconv.Itoa(p.X))
		}
		if p.Y > 0 {
			v.Set("y", strconv.Itoa(p.Y))
		}
		if p.Colour != "" {
			v.Set("colour", p.Colour)
		}
	case "curves":
		v.Set("metric", p.Metric)
		if p.DAxis != "" {
			v.Set("daxis", p.DAxis)
		}
	}
	return v
}
