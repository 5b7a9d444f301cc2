package jobs

import (
	"context"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/analysis"
	"mldr/internal/dataset"
	"mldr/internal/evaluate"
	"mldr/internal/preprocess"
	"mldr/internal/store"
)

// keptStore hands out the same loaded data sets at every load, as a
// worker's files do once they keep them (store.Files.CacheData).
type keptStore struct {
	*store.Store
	kept map[string]*dataset.Dataset
}

func (k *keptStore) LoadDataset(id string) (*dataset.Dataset, error) {
	if ds, ok := k.kept[id]; ok {
		c := *ds
		return &c, nil
	}
	ds, err := k.Store.LoadDataset(id)
	if err != nil {
		return nil, err
	}
	k.kept[id] = ds
	c := *ds
	return &c, nil
}

// A worker hands the next job the matrices of the data set the last one
// read (store.Files.CacheData), so no job may change them: every method,
// with every kind of split, preprocessing and evaluation, leaves the
// loaded X and Y as they were.
func TestExecuteLeavesLoadedDataAlone(t *testing.T) {
	e := newExecEnv(t)
	k := &keptStore{Store: e.store, kept: map[string]*dataset.Dataset{}}
	x := NewExecutorCache(k, "test", 0)
	var ml, mlEval, md []string
	for _, m := range analysis.Methods() {
		if m.MultiLabel {
			ml = append(ml, m.ID)
			if m.ID != "mds" { // it embeds its training rows only
				mlEval = append(mlEval, m.ID)
			}
		}
		if m.MultiDim {
			md = append(md, m.ID)
		}
	}
	eval := &Evaluate{Classifier: evaluate.ClassifierMLkNN, Dims: []int{1}}
	reqs := []Request{
		{Dataset: e.ml.ID, Methods: ml, Params: analysis.Params{D: 1}},
		{Dataset: e.ml.ID, Methods: mlEval, Params: analysis.Params{D: 1}, Preprocess: preprocess.Standardize, Evaluate: eval, Split: &Split{Kind: SplitHoldout}},
		{Dataset: e.ml.ID, Methods: []string{"pca", "mddmp", "cplst"}, Params: analysis.Params{D: 1}, Preprocess: preprocess.MinMax, Evaluate: eval, Split: &Split{Kind: SplitKFold, Folds: 3}},
		{Dataset: e.ml.ID, TestDataset: e.ml.ID, Methods: []string{"pca", "cplst"}, Params: analysis.Params{D: 1}, Evaluate: eval},
		{Dataset: e.md.ID, Methods: md, Params: analysis.Params{D: 1}},
		{Dataset: e.md.ID, Methods: []string{"pca", "lda"}, Params: analysis.Params{D: 1}, Evaluate: &Evaluate{Classifier: evaluate.ClassifierRidge, Dims: []int{1}}, Split: &Split{Kind: SplitPredefined}},
	}
	for _, req := range reqs {
		req.Normalize()
		if err := req.Validate(e.store, Limits{}); err != nil {
			t.Fatalf("invalid request %+v: %v", req, err)
		}
		for _, id := range []string{req.Dataset, req.TestDataset} {
			if id != "" {
				if _, err := k.LoadDataset(id); err != nil {
					t.Fatal(err)
				}
			}
		}
		before := map[string][2]*mat.Dense{}
		for id, ds := range k.kept {
			before[id] = [2]*mat.Dense{mat.DenseCopyOf(ds.X), mat.DenseCopyOf(ds.Y)}
		}
		j := Job{ID: store.NewID(), Request: req, CreatedAt: time.Now()}
		if _, err := x.Execute(context.Background(), j, func(float64, string, string) {}); err != nil {
			t.Fatalf("%v on %s: %v", req.MethodIDs(), req.Dataset, err)
		}
		for id, ds := range k.kept {
			if !mat.Equal(ds.X, before[id][0]) || !mat.Equal(ds.Y, before[id][1]) {
				t.Errorf("%v (split %s, preprocess %q): got the loaded X or Y of %s changed, want them as loaded", req.MethodIDs(), req.Split.Kind, req.Preprocess, id)
			}
		}
	}
}
