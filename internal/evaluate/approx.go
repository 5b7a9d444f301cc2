package evaluate

import (
	"cmp"
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/knn"
)

// ExactBudget is the predicted time, in seconds, of an exact neighbour
// search (knn.ExactSeconds) beyond which the multi-label k-NN vote
// searches approximately (knn.SearchApprox), unless Options.Recall is 1.
// An exact search of 306 782 test rows among 1 186 239 training rows at
// d = 100 (AmazonCat-13K's parts) is predicted at 24 minutes; a 5-fold
// split of EURLex-4K's 15 539 rows at 0.15 s a fold.
const ExactBudget = 120

// DefaultRecall is the recall@k the k-NN vote's approximate neighbour
// search aims at when Options.Recall is zero.
const DefaultRecall = knn.DefaultRecall

// neighbours finds the k nearest training rows of each test row for the
// k-NN vote (k of Options): exactly (nearest) on sparse rows, with recall
// 1, or where the exact search is predicted to fit ExactBudget; otherwise
// approximately, aiming at Options.Recall, the search's report kept for
// the notes (approxNotes). Its progress is the current step's.
func (r *runner) neighbours(ctx context.Context, xtr, xte mat.Matrix) (*knn.Neighbours, error) {
	o := r.spec.Options
	dtr, dense := xtr.(*mat.Dense)
	if !dense || o.Recall >= 1 {
		return nearest(ctx, o.K, xtr, xte)
	}
	n, d := dtr.Dims()
	m, _ := xte.Dims()
	secs := knn.ExactSeconds(n, m, d)
	if secs <= cmp.Or(r.budget, ExactBudget) || o.K > n {
		return nearest(ctx, o.K, xtr, xte)
	}
	st := &r.step
	nn, rep, err := knn.SearchApprox(ctx, dtr, xte.(*mat.Dense), o.K, knn.ApproxOptions{Recall: o.Recall, Seed: uint64(st.fold)}, func(f float64) {
		st.at = max(st.at, st.from+(st.to-st.from)*f)
		r.report(st.fold, st.at, fmt.Sprintf("%s: approximate neighbour search, %.0f%%", st.method, 100*f))
	})
	if err != nil {
		return nil, fmt.Errorf("searching the %d nearest neighbours approximately: %w", o.K, err)
	}
	if r.approx == nil {
		r.approx = map[string][]knn.ApproxReport{}
	}
	r.approx[st.method] = append(r.approx[st.method], rep)
	r.exactSecs = max(r.exactSecs, secs)
	return nn, nil
}

// approxNotes says, per method, where the k-NN vote searched its
// neighbours approximately, how, and the recall@k measured.
func (r *runner) approxNotes() {
	if len(r.approx) == 0 {
		return
	}
	k := r.spec.Options.K
	for _, m := range append([]string{Ori}, methodIDs(r.spec.Methods)...) {
		reps := r.approx[m]
		if len(reps) == 0 {
			continue
		}
		lo, hi, sum, sample := math.Inf(1), math.Inf(-1), 0.0, 0
		lists, probes := reps[0].Lists, reps[0].Probes
		for _, rep := range reps {
			lo, hi, sum, sample = min(lo, rep.Recall), max(hi, rep.Recall), sum+rep.Recall, max(sample, rep.Sample)
			lists, probes = min(lists, rep.Lists), max(probes, rep.Probes)
		}
		spread := ""
		if len(reps) > 1 {
			spread = fmt.Sprintf(" (%.3f to %.3f over %d searches)", lo, hi, len(reps))
		}
		r.note("%s: the k-NN vote searched its %d nearest neighbours approximately, as an exact search was predicted to take %s, above the budget of %s: "+
			"an inverted file of %d lists, %d probed a test row; on %d test rows sampled it found %.3f of the exact %d nearest (recall@%d)%s. "+
			"Set the evaluation's recall to 1 for the exact search",
			m, k, minutes(r.exactSecs), minutes(cmp.Or(r.budget, ExactBudget)), lists, probes, sample, sum/float64(len(reps)), k, k, spread)
	}
}

// minutes writes a duration in seconds in whole minutes, or seconds below
// two minutes.
func minutes(s float64) string {
	if s < 120 {
		return fmt.Sprintf("%.3g s", s)
	}
	return fmt.Sprintf("%.0f min", s/60)
}
