package views

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"mldr/internal/comparison"
	"mldr/internal/plots"
)

// CD is the critical-difference diagram of a comparison at α.
func CD(c comparison.Comparison, alpha string) (*plots.Figure, string, error) {
	var methods []string
	var ranks []float64
	for _, m := range c.Methods {
		if r := c.AverageRanks[m]; r != nil {
			methods, ranks = append(methods, m), append(ranks, *r)
		}
	}
	if len(methods) < 2 {
		return nil, "", undrawable("a critical-difference diagram needs at least 2 methods ranked on the data sets")
	}
	cd := math.NaN()
	if v, ok := c.NemenyiCD[alpha]; ok {
		cd = v
	}
	f, err := plots.CriticalDifference(plots.CriticalDifferenceInput{
		Title:   fmt.Sprintf("Critical differences of %s (%s)", metricText(c.Metric), choiceText(c)),
		Methods: evaluatedNames(methods), AvgRanks: ranks, CD: cd, Alpha: alpha, Datasets: c.RankedDatasets})
	if err != nil {
		return nil, "", err
	}
	order := slices.Clone(methods)
	slices.SortStableFunc(order, func(a, b string) int { return cmpRank(c, a, b) })
	alt := fmt.Sprintf("Critical-difference diagram of %s (%s): average ranks over %d data sets, best first: %s.",
		metricText(c.Metric), choiceText(c), c.RankedDatasets, rankList(c, order))
	if !math.IsNaN(cd) {
		alt += fmt.Sprintf(" Nemenyi CD at α = %s is %.3f.", alpha, cd)
	}
	return f, alt, nil
}

func cmpRank(c comparison.Comparison, a, b string) int {
	ra, rb := c.AverageRanks[a], c.AverageRanks[b]
	switch {
	case *ra < *rb:
		return -1
	case *ra > *rb:
		return 1
	}
	return 0
}

func rankList(c comparison.Comparison, order []string) string {
	var parts []string
	for _, m := range order {
		parts = append(parts, fmt.Sprintf("%s %.2f", EvaluatedName(m), *c.AverageRanks[m]))
	}
	return strings.Join(parts, ", ")
}

// Ranks is the heatmap of a comparison's ranks, data sets × methods.
func Ranks(c comparison.Comparison) (*plots.Figure, string, error) {
	ranks := make([][]float64, len(c.Ranks))
	for i, row := range c.Ranks {
		ranks[i] = make([]float64, len(row))
		for j, r := range row {
			ranks[i][j] = math.NaN()
			if r != nil {
				ranks[i][j] = *r
			}
		}
	}
	in := plots.RankHeatmapInput{
		Title:   fmt.Sprintf("Ranks by %s (%s)", metricText(c.Metric), choiceText(c)),
		Methods: evaluatedNames(c.Methods), Datasets: c.DatasetNames, Ranks: ranks}
	for _, m := range c.Methods { // the comparison's average ranks, when every method has one
		r := c.AverageRanks[m]
		if r == nil {
			in.AvgRanks = nil
			break
		}
		in.AvgRanks = append(in.AvgRanks, *r)
	}
	f, err := plots.RankHeatmap(in)
	if err != nil {
		return nil, "", err
	}
	return f, fmt.Sprintf("Ranks of %d methods on %d data sets by %s (%s), 1 = best.", len(c.Methods), len(c.Datasets), metricText(c.Metric), choiceText(c)), nil
}
