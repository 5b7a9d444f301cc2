package evaluate

import (
	"context"
	"fmt"
	"math"
	"slices"

	"mldr/internal/analysis"
)

// The grid of d a curve visits: its check, its points (a d and, on a percent
// grid, the percentage it answers) and the cells they fall in, the limit a
// model sets on them, and the rank base of a percent grid of ranks
// (fixRankGrid).

// Grid is the values of d (M) a curve visits: Dims, or Percent of Of —
// "features" (D, the default) or "rank" (each method's own rank). With
// neither, each method's d is the one its parameters choose. A percent
// grid gives one point per percentage: d = max(1, round(p/100 · base)),
// the same on every split. With Of "rank" and several splits, the base is
// the smallest rank of the method's fits on the splits' training parts
// (Run fits each once more, before the folds): the rank of the whole
// training data is often larger than every fold's (a feature seen only in
// one test part), so its 100 % would be out of reach on every fold. With
// one split it is that split's rank. For lda with one block per class
// variable, grid values are d per variable and its rank base is the most
// directions a variable gives.
type Grid struct {
	Dims    []int     `json:"dims,omitempty"`
	Percent []float64 `json:"percent,omitempty"`
	Of      string    `json:"of,omitempty"`
}

func (g Grid) check() error {
	if len(g.Dims) > 0 && len(g.Percent) > 0 {
		return fmt.Errorf("evaluate: give the grid as dims or as percent, not both")
	}
	for _, d := range g.Dims {
		if d < 1 {
			return fmt.Errorf("evaluate: every d of the grid must be at least 1, not %d", d)
		}
	}
	for _, p := range g.Percent {
		if !(p > 0 && p <= 100) {
			return fmt.Errorf("evaluate: grid percentages must be in (0, 100], not %v", p)
		}
	}
	if g.Of != "" && g.Of != "features" && g.Of != "rank" {
		return fmt.Errorf("evaluate: grid percentages are of \"features\" or \"rank\", not %q", g.Of)
	}
	return nil
}

// point is one value of a grid: the d it asks for and, on a percent grid,
// the percentage it answers (nil otherwise).
type point struct {
	d       int
	percent *float64
	// own says d is the one the method's parameters chose on this fold
	// (no grid): the folds' rows share one cell whatever their d.
	own bool
}

// key is the cell of method's rows at pt.
func (pt point) key(method string) cellKey {
	if pt.own {
		return cellKey{method: method, own: true}
	}
	k := cellKey{method: method, d: pt.d}
	if pt.percent != nil {
		k.percent, k.byPercent = *pt.percent, true
	}
	return k
}

// errD is the grid value the per-row errors of pt are kept under: 0 for
// the method's own d, which may differ between the folds.
func (pt point) errD() int {
	if pt.own {
		return 0
	}
	return pt.d
}

// points lists the grid's values for a method with D features and rank
// base rank, by ascending d; nil means "the method's own d". Dims give one
// point per distinct d, Percent one per distinct percentage (two may share
// a d).
func (g Grid) points(features, rank int) []point {
	if len(g.Dims) > 0 {
		v := slices.Clone(g.Dims)
		slices.Sort(v)
		var pts []point
		for _, d := range slices.Compact(v) {
			pts = append(pts, point{d: d})
		}
		return pts
	}
	if len(g.Percent) == 0 {
		return nil
	}
	base := features
	if g.Of == "rank" {
		base = rank
	}
	ps := slices.Clone(g.Percent)
	slices.Sort(ps)
	var pts []point
	for _, p := range slices.Compact(ps) {
		pts = append(pts, point{d: max(1, int(math.Round(p/100*float64(base)))), percent: &p})
	}
	return pts
}

// maxDim is the largest d the grid asks of a method with D features and
// rank base rank (0 when the rank is not fixed yet), as Params.MaxDim:
// analysis.MaxDimAll when it is a percentage of a rank not known before
// the fit.
func (g Grid) maxDim(features, rank int) int {
	if len(g.Dims) == 0 && g.Of == "rank" && rank == 0 {
		return analysis.MaxDimAll
	}
	pts := g.points(features, rank)
	if len(pts) == 0 {
		return analysis.MaxDimAll
	}
	return pts[len(pts)-1].d
}

// values lists the grid's distinct d for a method with D features and
// rank base rank; nil means "the method's own d".
func (g Grid) values(features, rank int) []int {
	var v []int
	for _, p := range g.points(features, rank) {
		v = append(v, p.d)
	}
	return slices.Compact(v) // points come by ascending d
}

// byD groups points by their d, in ascending order of d.
func byD(pts []point) [][]point {
	var groups [][]point
	for _, p := range pts {
		if n := len(groups); n > 0 && groups[n-1][0].d == p.d {
			groups[n-1] = append(groups[n-1], p)
			continue
		}
		groups = append(groups, []point{p})
	}
	return groups
}

// gridLimit is the largest grid value a model serves and what it is: its
// rank, or for lda with one block per class variable the most directions
// a variable gives (its grid values are d per variable).
func gridLimit(m *analysis.Model) (int, string) {
	if len(m.Blocks) == 0 {
		return m.Rank, m.RankOf
	}
	limit := 0
	for _, b := range m.Blocks {
		limit = max(limit, len(b.Values))
	}
	return limit, "directions per class variable"
}

// fixRankGrid, for a percent grid of "rank" over several splits, fits
// every method on each split's training part and keeps its smallest rank
// (gridLimit) as the base of the percentages, so that each percentage
// gives one d, the same on every split and within reach on each. A note
// says when the ranks differ.
func (r *runner) fixRankGrid(ctx context.Context) error {
	g := r.spec.Grid
	if len(g.Percent) == 0 || g.Of != "rank" || len(r.splits) < 2 {
		return nil
	}
	r.rankBase = map[string]int{}
	for _, run := range r.spec.Methods {
		p := run.Params
		p.D, p.Thr, p.MaxDim = 0, 0, analysis.MaxDimAll // the rank: every eigenvalue
		lo, hi, what := 0, 0, ""
		for f, sp := range r.splits {
			r.report(0, 0, fmt.Sprintf("%s: its rank on split %d of %d", run.ID, f+1, len(r.splits)))
			train, _, err := r.scaled(sp) // the rank of what the fold will fit on
			if err != nil {
				return err
			}
			m, err := analysis.Fit(ctx, run.ID, train, p, nil)
			if err != nil {
				return err
			}
			limit, of := gridLimit(m)
			if f == 0 || limit < lo {
				lo = limit
			}
			hi, what = max(hi, limit), of
		}
		r.rankBase[run.ID] = lo
		if lo != hi {
			r.note("%s: the %s differs between the splits' training parts (%d to %d); the grid's percentages are of the smallest, %d, "+
				"so that each gives one d on every split", run.ID, what, lo, hi, lo)
		}
	}
	return nil
}

// gridPoints are the grid's points for method id on nFeat features: a
// percent grid of ranks takes the method's rank base when Run found one,
// else limit, the most directions its model gives.
func (r *runner) gridPoints(id string, nFeat, limit int) []point {
	base := limit
	if b, ok := r.rankBase[id]; ok {
		base = b
	}
	return r.spec.Grid.points(nFeat, base)
}

// within keeps the points at or below the method's limit (limitOf says
// what it is), noting each one skipped.
func (r *runner) within(id string, pts []point, limit int, limitOf string) []point {
	var usable []point
	for _, pt := range pts {
		if pt.d > limit {
			r.note("%s: d = %d is above its limit %d (%s) on some folds and was skipped", id, pt.d, limit, limitOf)
			continue
		}
		usable = append(usable, pt)
	}
	return usable
}
