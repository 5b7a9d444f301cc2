// Package stats holds the statistics used to compare methods over several
// data sets, as described by J. Demšar, "Statistical Comparisons of
// Classifiers over Multiple Data Sets", Journal of Machine Learning
// Research 7 (2006) 1–30: average ranks, the Friedman test and the
// Iman–Davenport correction of it (section 3.2.2), the Nemenyi critical
// difference (section 3.2.2, table 5(a)), the Wilcoxon signed-rank test for
// two methods (section 3.1.3) and the smallest p-value it can give at a
// number of data sets (WilcoxonMinP), Holm's step-down correction of several
// p-values (section 3.2.2), and the paired t-test over the folds of one data
// set (section 3.1.2). For the explorer's selections it has the
// hypergeometric upper tail (HypergeomSF) and the Benjamini–Hochberg
// adjustment, tested against testdata/make_hypergeom_goldens.py (mpmath
// and scipy).
//
// Each function matches the scipy 1.10.1 function its doc comment names,
// edge cases included, and is tested against goldens written by
// testdata/make_goldens.py (WilcoxonMinP by
// testdata/make_wilcoxon_min_goldens.py) with Debian's python3-scipy. Where scipy
// returns NaN or raises, the function returns an error saying so (or NaN,
// as its doc comment says), so that a caller can report the value as
// undefined. The package knows numbers only: no data sets, jobs or HTTP.
package stats
