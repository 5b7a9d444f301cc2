package views

import (
	"fmt"
	"slices"

	"mldr/internal/analysis"
	"mldr/internal/jobs"
	"mldr/internal/plots"
)

// Spectrum is a method's eigenvalue spectrum, its bars in the method's
// colour on the page (its place in order), on a log scale when log, up to
// yMax (0: fit the bars), and its text alternative. A method without a
// positive eigenvalue has no spectrum: *Undrawable.
func Spectrum(m jobs.MethodResult, order []string, log bool, yMax float64) (*plots.Figure, string, error) {
	name := MethodName(m.Method)
	if st := m.Eigen.Stress; st != nil {
		return nil, "", undrawable("no spectrum: %s mds is fitted by SMACOF, which has no eigenvalues; its stress-1 is %.4g (raw stress %.4g)",
			m.Manifest.Params.MDSKind, st.Stress1, st.Raw)
	}
	if !slices.ContainsFunc(m.Eigen.Eigenvalues, func(v float64) bool { return v > 0 }) {
		return nil, "", undrawable("no spectrum: none of %s's eigenvalues is positive (its objective is indefinite), so they have no shares of a sum to show; its d is given, not chosen by energy", name)
	}
	f, err := plots.Spectrum(plots.SpectrumInput{Title: name + ": eigenvalue spectrum", Eigenvalues: m.Eigen.Eigenvalues,
		D: m.Eigen.D, Thr: thrOf(m), Log: log, MaxComponents: 60, YMax: yMax, Color: slices.Index(order, m.Method),
		Order: m.Eigen.Order, Total: m.Eigen.Total})
	n := len(m.Eigen.Eigenvalues)
	alt := fmt.Sprintf("Bars of the %d eigenvalues of %s as shares of their sum, with the cumulative share; d = %d keeps %.1f%%.",
		n, name, m.Eigen.D, 100*m.Eigen.Energy)
	if m.Eigen.Order > n && m.Eigen.Total > 0 {
		kept := 0.0
		for _, v := range m.Eigen.Eigenvalues {
			kept += max(v, 0)
		}
		alt = fmt.Sprintf("Bars of the %d leading eigenvalues of %s (%d of %s computed; they hold %.1f%% of the trace) as shares of the trace, "+
			"with the cumulative share; d = %d keeps %.1f%%.", n, name, n, plots.GroupDigits(m.Eigen.Order), 100*min(kept/m.Eigen.Total, 1), m.Eigen.D, 100*m.Eigen.Energy)
	}
	return f, alt, err
}

// thrOf is the energy threshold that chose a method's d: the one given, or
// the default when neither d nor thr was; 0 when d was given.
func thrOf(m jobs.MethodResult) float64 {
	p := m.Manifest.Params
	desc, _ := analysis.Lookup(m.Method)
	switch {
	case p.Thr != 0:
		return p.Thr
	case p.D == 0 && slices.Contains(desc.Takes, analysis.ParamThr):
		return analysis.DefaultThr
	}
	return 0
}
