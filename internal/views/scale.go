package views

import (
	"fmt"

	"mldr/internal/dataset"
	"mldr/internal/plots"
	"mldr/internal/preprocess"
)

// ScaleHint suggests `preprocess: standardize` when one feature's scale
// dwarfs the others' (s.Spread: the largest non-zero column standard
// deviation over the smallest above dataset.SpreadHint) and the features
// are used as given (pre, the job's or the form's preprocessing, "none"
// or ""): PCA and the other methods led by the features' variance then
// see little but the widest column. It names both columns; "" when
// there is nothing to suggest.
func ScaleHint(s dataset.Summary, pre string) string {
	if !s.Spread.Dwarfs() || (pre != "" && pre != preprocess.None) {
		return ""
	}
	sp := s.Spread
	return fmt.Sprintf("The feature %s varies %s times as much as %s (standard deviations %.3g and %.3g): "+
		"on the features as given, PCA and the other methods led by their variance see little but %s. "+
		"Consider preprocess: standardize, which scales every feature to standard deviation 1.",
		cut(sp.Widest, maxNameInError), formatRatio(sp.Ratio), cut(sp.Narrowest, maxNameInError), sp.WidestStd, sp.NarrowestStd, cut(sp.Widest, maxNameInError))
}

// formatRatio writes a large ratio for a sentence: "4 200", "1.3e+07".
func formatRatio(r float64) string {
	if r >= 1e6 {
		return fmt.Sprintf("%.2g", r)
	}
	return plots.GroupDigits(int(r + 0.5))
}
