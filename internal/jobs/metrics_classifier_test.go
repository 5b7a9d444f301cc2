package jobs

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"mldr/internal/analysis"
	"mldr/internal/evaluate"
)

// rawMetrics reads a job's metrics.json as JSON objects: its classifier
// block and its rows.
func rawMetrics(t *testing.T, dir string) (map[string]any, []map[string]any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, FileMetrics))
	if err != nil {
		t.Fatal(err)
	}
	var mf struct {
		Classifier map[string]any   `json:"classifier"`
		Rows       []map[string]any `json:"rows"`
	}
	if err := json.Unmarshal(b, &mf); err != nil {
		t.Fatal(err)
	}
	return mf.Classifier, mf.Rows
}

func keys(m map[string]any) string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return strings.Join(out, ",")
}

// metrics.json's classifier block holds the parameters of the classifier
// that ran and no other's.
func TestMetricsFileClassifier(t *testing.T) {
	e := newExecEnv(t)
	for _, tc := range []struct {
		classifier string
		multiDim   bool
		want       string // the classifier block's keys, sorted
	}{
		{evaluate.ClassifierMLkNN, false, "classifier,k,ps_a,ps_b,s"},
		{evaluate.ClassifierKNN, false, "classifier,k,ps_a,ps_b"}, // recall when the request gives it
		{evaluate.ClassifierRidge, false, "classifier,lambda,ps_a,ps_b"},
		{evaluate.ClassifierSVM, false, "c,classifier,eps,ps_a,ps_b"},
		{evaluate.ClassifierMLkNN, true, "classifier,k"},
		{evaluate.ClassifierKNN, true, "classifier,k"},
		{evaluate.ClassifierRidge, true, "classifier,lambda"},
		{evaluate.ClassifierSVM, true, "c,classifier,eps"},
	} {
		name := tc.classifier + "/multilabel"
		rec := e.ml
		if tc.multiDim {
			name, rec = tc.classifier+"/multidim", e.md
		}
		t.Run(name, func(t *testing.T) {
			req := Request{Dataset: rec.ID, Methods: []string{"pca"}, Params: analysis.Params{D: 2},
				Evaluate: &Evaluate{Classifier: tc.classifier}}
			if tc.multiDim {
				req.Split = &Split{Kind: SplitPredefined}
			}
			j, _, err := e.run(req)
			if err != nil {
				t.Fatal(err)
			}
			c, rows := rawMetrics(t, e.store.JobDir(j.ID))
			if got := keys(c); got != tc.want || c["classifier"] != tc.classifier {
				t.Errorf("classifier block: got %v, want %s with the keys %s", c, tc.classifier, tc.want)
			}
			for _, r := range rows {
				if _, ok := r["decoder"]; ok {
					t.Errorf("row of %v: got decoder %v, want none on a feature-space method", r["method"], r["decoder"])
				}
			}
		})
	}
}

// The rows of a label-space method name the decoder that predicted their
// labels, whatever the classifier, with its λ; the others have none.
func TestMetricsFileDecoder(t *testing.T) {
	e := newExecEnv(t)
	want := map[string]string{
		"plst": evaluate.DecoderRidge, "occa": evaluate.DecoderRidge, "cplst": evaluate.DecoderRidge,
		"kcplst": evaluate.DecoderKernelRidge, "mlcssp": evaluate.DecoderRidge, "faie": evaluate.DecoderRidge,
		"rembrandt": evaluate.DecoderRidge, "leml": evaluate.DecoderLEML,
	}
	var labelSpace []string
	for _, m := range analysis.Methods() {
		if m.Space == analysis.LabelSpace {
			labelSpace = append(labelSpace, m.ID)
		}
	}
	if got := len(labelSpace); got != len(want) {
		t.Fatalf("label-space methods: got %v, want a decoder for each (the table has %d)", labelSpace, len(want))
	}
	lambda := 0.5
	j, _, err := e.run(Request{Dataset: e.ml.ID, Methods: append([]string{"pca"}, labelSpace...), Params: analysis.Params{D: 2, Lambda: &lambda},
		Evaluate: &Evaluate{Classifier: evaluate.ClassifierSVM}})
	if err != nil {
		t.Fatal(err)
	}
	_, rows := rawMetrics(t, e.store.JobDir(j.ID))
	seen := map[string]int{}
	for _, r := range rows {
		method := r["method"].(string)
		seen[method]++
		dec, ok := want[method]
		if !ok {
			if _, has := r["decoder"]; has {
				t.Errorf("%s: got decoder %v, want none", method, r["decoder"])
			}
			continue
		}
		if r["decoder"] != dec || r["decoder_lambda"] != lambda {
			t.Errorf("%s (fold %v): got decoder %v, λ %v; want %s, %v", method, r["fold"], r["decoder"], r["decoder_lambda"], dec, lambda)
		}
	}
	for _, m := range labelSpace {
		if seen[m] == 0 {
			t.Errorf("%s: no rows in metrics.json", m)
		}
	}
}
