package views

import (
	"errors"
	"slices"
	"testing"

	"mldr/internal/analysis"
	"mldr/internal/comparison"
	"mldr/internal/jobs"
)

// The caption's phrases and the columns' names of a table for papers.
func TestStudyTablePhrases(t *testing.T) {
	beta, d := 0.5, 4
	for _, tc := range []struct{ got, want string }{
		{metricPaperText("hamming_loss"), "Hamming loss"},
		{metricPaperText("micro_f1"), "Micro-F1"},
		{metricPaperText("one_error"), "One-error"},
		{metricPaperText("precision_at_3"), "P@3"},
		{classifierPhrase(jobs.Request{Evaluate: &jobs.Evaluate{Classifier: "mlknn", K: 10, S: 1}}), "classifier ML-kNN (k = 10, s = 1)"},
		{classifierPhrase(jobs.Request{Evaluate: &jobs.Evaluate{Classifier: "svm", C: 1, Eps: 0.0001}}), "classifier LIBLINEAR's linear SVM (C = 1, eps = 0.0001)"},
		{classifierPhrase(jobs.Request{Evaluate: &jobs.Evaluate{Classifier: "ridge", Lambda: 0.1}}), "classifier ridge regression (lambda = 0.1)"},
		{classifierPhrase(jobs.Request{Methods: []string{"pca", "plst", "cplst", "kcplst", "leml"}, Params: analysis.Params{Lambda: &beta},
			Evaluate: &jobs.Evaluate{Classifier: "svm", C: 1, Eps: 0.0001}}),
			"classifier LIBLINEAR's linear SVM (C = 1, eps = 0.0001); PLST and CPLST: decoded by ridge regression, lambda = 0.5; " +
				"Kernel CPLST: decoded by Gaussian-kernel ridge regression, lambda = 0.5; LEML: decoded by LEML's own low-rank regression, lambda = 0.5, not by the classifier"},
		{classifierPhrase(jobs.Request{Methods: []string{"occa"}, Evaluate: &jobs.Evaluate{Classifier: "ridge", Lambda: 0.2}}),
			"classifier ridge regression (lambda = 0.2); OCCA: decoded by ridge regression, lambda = 0.1, not by the classifier"},
		{dimsPhrase(comparison.Comparison{}, analysis.Params{Thr: 0.99, Beta: &beta, LabelKernel: "rbf"}),
			"each method at the d that keeps thr = 0.99 of its eigenvalues; method parameters beta = 0.5, label_kernel = rbf"},
		{dimsPhrase(comparison.Comparison{}, analysis.Params{D: 3}), "d = 3"},
		{dimsPhrase(comparison.Comparison{D: &d}, analysis.Params{}), "d = 4"},
		{dimsPhrase(comparison.Comparison{}, analysis.Params{}), "each method at its own d"},
		{choiceText(comparison.Comparison{CommonD: &d}), "d = 4 for every method"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

// A table for papers takes the first five metrics of the pages' order by
// default, the metrics asked for in their order, and refuses what the
// study does not have with what it has.
func TestStudyPaperTableMetrics(t *testing.T) {
	var f comparison.File
	for _, m := range []string{"average_precision", "coverage", "hamming_loss", "macro_f1", "micro_f1", "one_error", "ranking_loss"} {
		f.Comparisons = append(f.Comparisons, comparison.Comparison{Metric: m, Methods: []string{"ori", "pca"}, Datasets: []string{"a"}, DatasetNames: []string{"A"},
			Scores: [][]*float64{{nil, nil}}, Std: [][]*float64{{nil, nil}}, AverageRanks: map[string]*float64{}})
	}
	req := jobs.Request{Datasets: []string{"a"}, Evaluate: &jobs.Evaluate{Classifier: "ridge", Lambda: 0.1}, Split: &jobs.Split{Kind: jobs.SplitKFold, Folds: 3, Seed: 1}}
	keys := func(tab *comparison.Table) []string {
		var k []string
		for _, m := range tab.Metrics {
			k = append(k, m.Key)
		}
		return k
	}
	tab, err := StudyPaperTable("0123456789", req, &f, StudyTableOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"hamming_loss", "ranking_loss", "one_error", "coverage", "average_precision"}; !slices.Equal(keys(tab), want) {
		t.Errorf("default metrics %v, want %v", keys(tab), want)
	}
	if tab.Spec.Label != "tab:mldr-01234567" || tab.Name("pca") != "PCA" || tab.Spec.Cites["pca"].Key != "jolliffe2002pca" || tab.Spec.Split != "split: 3-fold cross-validation, seed 1" {
		t.Errorf("label %q, name %q, cite %+v, split %q", tab.Spec.Label, tab.Name("pca"), tab.Spec.Cites["pca"], tab.Spec.Split)
	}
	if tab, err = StudyPaperTable("0123456789", req, &f, StudyTableOptions{Metrics: []string{"micro_f1", "coverage"}}); err != nil || !slices.Equal(keys(tab), []string{"micro_f1", "coverage"}) {
		t.Errorf("metrics micro_f1, coverage: got %v, %v", tab, err)
	}
	var bo *BadOption
	if _, err := StudyPaperTable("0123456789", req, &f, StudyTableOptions{Metrics: []string{"f2"}}); !errors.As(err, &bo) || bo.Field != "metrics" {
		t.Errorf("metric f2: got %v, want a BadOption on metrics", err)
	}
	if _, err := StudyPaperTable("0123456789", req, &f, StudyTableOptions{D: "5"}); !errors.As(err, &bo) || bo.Field != "d" {
		t.Errorf("d = 5: got %v, want a BadOption on d", err)
	}
}
