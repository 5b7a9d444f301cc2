// Package evaluate measures what a classifier does with a reduction, as the
// papers do: splits (holdout, k-fold, a separate test set, predefined
// folds), classifiers (ML-kNN, ridge binary relevance, the label-space
// regressors with round-based decoding, and one classifier per class
// variable for multi-dimensional data), the metrics of multi-label and
// multi-dimensional classification, curves of a metric against d for
// several methods on the same split, and on request (Spec.RowErrors) each
// row's errors where it was tested.
//
// With default settings it follows the authors' reference code (shared
// METHODS.md, "Matching the authors' reference code"): the ML-kNN MATLAB
// package's metric conventions, the CPLST authors' ±1 coding and ridge
// regressor, and the MATLAB baselines' ridge binary relevance.
package evaluate
