package views

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"mldr/internal/analysis"
	"mldr/internal/evaluate"
	"mldr/internal/plots"
)

// MethodName is a method's name as pages show it ("ori" for the baseline
// without reduction; the id itself for a method no longer known).
func MethodName(id string) string {
	if id == evaluate.Ori {
		return "ori"
	}
	if m, ok := analysis.Lookup(id); ok {
		return m.Name
	}
	return id
}

// EvaluatedName is MethodName of a method in an evaluation's tables and
// curves: a transductive method (mds), which an evaluation fits on the
// training and test rows together, says so.
func EvaluatedName(id string) string {
	if m, ok := analysis.Lookup(id); ok && m.Transductive {
		return MethodName(id) + " (transductive)"
	}
	return MethodName(id)
}

// evaluatedNames is EvaluatedName of each of ids.
func evaluatedNames(ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = EvaluatedName(id)
	}
	return out
}

// ColourHex is a method's colour as CSS, from its place in the page's
// order of methods.
func ColourHex(order []string, method string) string {
	r, g, b, _ := plots.SeriesColor(slices.Index(order, method)).RGBA()
	return fmt.Sprintf("#%02x%02x%02x", r>>8, g>>8, b>>8)
}

// baselineColour is the colour of the ori baseline, after the methods'.
const baselineColour = 7

// maxNameInError is where a name quoted in an error is cut.
const maxNameInError = 60

// CutName shortens a name (or any value a user gave) to quote it in an
// error: at most 60 runes, the last of them "…" when cut.
func CutName(s string) string { return cut(s, maxNameInError) }

// cut shortens s to n runes, with "…".
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// maxNamesInError is how many names an error lists before "…".
const maxNamesInError = 10

// nameList is names quoted and joined, the first maxNamesInError of them,
// then how many more.
func nameList(names []string) string {
	var b strings.Builder
	for i, n := range names[:min(len(names), maxNamesInError)] {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(cut(n, maxNameInError)))
	}
	if more := len(names) - maxNamesInError; more > 0 {
		fmt.Fprintf(&b, " and %s more", plots.GroupDigits(more))
	}
	return b.String()
}

// metricText is a metric's name as pages write it ("hamming loss"); the
// extreme-classification metrics as their literature writes them ("P@1",
// "nDCG@3", "PSP@5", "PSnDCG@5").
func metricText(metric string) string {
	if t, ok := xcMetricText[metric]; ok {
		return t
	}
	return strings.ReplaceAll(metric, "_", " ")
}

// xcMetricText names the extreme-classification metrics.
var xcMetricText = map[string]string{
	evaluate.PrecisionAt1: "P@1", evaluate.PrecisionAt3: "P@3", evaluate.PrecisionAt5: "P@5",
	evaluate.NDCGAt1: "nDCG@1", evaluate.NDCGAt3: "nDCG@3", evaluate.NDCGAt5: "nDCG@5",
	evaluate.PSPrecisionAt1: "PSP@1", evaluate.PSPrecisionAt3: "PSP@3", evaluate.PSPrecisionAt5: "PSP@5",
	evaluate.PSNDCGAt1: "PSnDCG@1", evaluate.PSNDCGAt3: "PSnDCG@3", evaluate.PSNDCGAt5: "PSnDCG@5",
}

// SpaceNote says, for a method of the label space (PLST, CPLST and their
// family), what its scatter shows: not the rows but the codes of the
// label sets (a label vector times the method's directions), so rows
// with the same labels share one point; "" for a method of the feature
// space.
func SpaceNote(method string, space analysis.Space) string {
	if space != analysis.LabelSpace {
		return ""
	}
	return MethodName(method) + " reduces the label space: its scatter shows label codes, not the rows' features. " +
		"Each point is the code of a label set (the set's 0/1 label vector on the method's directions), " +
		"so every row with the same labels falls on the same point and there are as many points as distinct label sets."
}
