package views

import (
	"errors"
	"fmt"
	"strings"

	"mldr/internal/analysis"
	"mldr/internal/plots"
)

// Undrawable is a figure the data do not allow (the plot API answers 422;
// a page shows Msg in the figure's place).
type Undrawable struct{ Msg string }

func (e *Undrawable) Error() string { return e.Msg }

// undrawable is an *Undrawable saying what format and args say.
func undrawable(format string, args ...any) error {
	return &Undrawable{Msg: fmt.Sprintf(format, args...)}
}

// BadOption is an option the user gave (Field, a query parameter or form
// field) that cannot be honoured; Msg names the valid choices (400).
type BadOption struct{ Field, Msg string }

func (e *BadOption) Error() string { return e.Msg }

// badOption is a *BadOption of field saying what format and args say.
func badOption(field, format string, args ...any) error {
	return &BadOption{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// NotFound is a view or figure that does not exist, such as a plot
// name no data set has (404).
type NotFound struct{ Msg string }

func (e *NotFound) Error() string { return e.Msg }

func notFound(format string, args ...any) error {
	return &NotFound{Msg: fmt.Sprintf(format, args...)}
}

// Note tells whether err says a figure cannot be drawn from these data
// (an *Undrawable or a plots.InputError), and the sentence a page shows
// in its place.
func Note(err error) (string, bool) {
	var u *Undrawable
	var ie *plots.InputError
	switch {
	case errors.As(err, &u):
		return Sentence(u.Msg) + ".", true
	case errors.As(err, &ie):
		return "This plot cannot be drawn from these results (" + ie.Error() + ").", true
	}
	return "", false
}

// Sentence capitalises a message for display on its own. A parameter's or
// a method's name keeps its case ("d must be…", not "D must be…": D is the
// number of features).
func Sentence(s string) string {
	first, _, _ := strings.Cut(s, " ")
	if _, method := analysis.Lookup(first); s == "" || isParam(first) || method {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// isParam tells whether s is a parameter's name as the API spells it.
func isParam(s string) bool {
	switch s {
	case analysis.ParamD, analysis.ParamThr, analysis.ParamBeta, analysis.ParamGamma, analysis.ParamLambda,
		analysis.ParamRidge, analysis.ParamLabelKernel, analysis.ParamK, analysis.ParamNormalize, "test_fraction",
		analysis.ParamKernel, analysis.ParamDegree, analysis.ParamCoef0, analysis.ParamLandmarks, analysis.ParamLandmarkSampling, analysis.ParamLandmarkSeed,
		analysis.ParamAlpha, analysis.ParamOversample, analysis.ParamPowerIters, analysis.ParamIterations,
		analysis.ParamMDSKind, analysis.ParamSeed, analysis.ParamStarts:
		return true
	}
	return false
}
