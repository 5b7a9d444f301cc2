package comparison

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// WriteTeX writes f as comparison.tex: per comparison a LaTeX table
// environment holding a tabular whose rows are the data sets (their names,
// TeX-escaped) and columns the methods, each cell "mean $\pm$ std" with 4
// decimals (the mean alone without std, -- when undefined), the best mean
// of each row in \textbf (every mean tied with the best, as in
// wins/ties/losses), and a last row of the average ranks (2 decimals, the
// best bold). The caption names the metric, its direction in words, the
// d-choice, the Friedman p-value and the Nemenyi critical difference at
// α = 0.05. It needs no package beyond LaTeX's own.
func WriteTeX(w io.Writer, f File) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%% comparison.tex: one table per metric and d-choice; \\input{} it in a document.\n")
	for _, c := range f.Comparisons {
		writeTable(bw, c)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("comparison: writing comparison.tex: %w", err)
	}
	return nil
}

func writeTable(w io.Writer, c Comparison) {
	lower := c.Better == "lower"
	better := func(a, b float64) bool {
		if lower {
			return a < b
		}
		return a > b
	}
	fmt.Fprintf(w, "\n\\begin{table}[htbp]\n\\centering\n\\caption{%s}\n", caption(c))
	fmt.Fprintf(w, "\\begin{tabular}{l%s}\n\\hline\n", strings.Repeat("r", len(c.Methods)))
	fmt.Fprint(w, "Data set")
	for _, m := range c.Methods {
		fmt.Fprintf(w, " & %s", TeXEscape(m))
	}
	fmt.Fprint(w, " \\\\\n\\hline\n")
	for i, name := range c.DatasetNames {
		best := math.NaN()
		for _, s := range c.Scores[i] {
			if s != nil && (math.IsNaN(best) || better(*s, best)) {
				best = *s
			}
		}
		fmt.Fprint(w, TeXEscape(name))
		for j, s := range c.Scores[i] {
			if s == nil {
				fmt.Fprint(w, " & --")
				continue
			}
			mean := strconv.FormatFloat(*s, 'f', 4, 64)
			if tied(*s, best) {
				mean = "\\textbf{" + mean + "}"
			}
			if sd := c.Std[i][j]; sd != nil {
				mean += " $\\pm$ " + strconv.FormatFloat(*sd, 'f', 4, 64)
			}
			fmt.Fprintf(w, " & %s", mean)
		}
		fmt.Fprint(w, " \\\\\n")
	}
	fmt.Fprint(w, "\\hline\nAverage rank")
	best := math.Inf(1)
	for _, m := range c.Methods {
		if r := c.AverageRanks[m]; r != nil {
			best = math.Min(best, *r)
		}
	}
	for _, m := range c.Methods {
		r := c.AverageRanks[m]
		switch {
		case r == nil:
			fmt.Fprint(w, " & --")
		case tied(*r, best):
			fmt.Fprintf(w, " & \\textbf{%.2f}", *r)
		default:
			fmt.Fprintf(w, " & %.2f", *r)
		}
	}
	fmt.Fprint(w, " \\\\\n\\hline\n\\end{tabular}\n\\end{table}\n")
}

// caption says what the table compares and the tests' results.
func caption(c Comparison) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s is better), ", TeXEscape(c.Metric), c.Better)
	switch {
	case c.D != nil:
		fmt.Fprintf(&b, "$d = %d$", *c.D)
	case c.Percent != nil:
		fmt.Fprintf(&b, "$d$ at %s\\%% of each method's limit", strconv.FormatFloat(*c.Percent, 'g', -1, 64))
	default:
		b.WriteString("each method at its own $d$")
	}
	fmt.Fprintf(&b, "; mean $\\pm$ std over folds, best in bold; %d data sets ranked. ", c.RankedDatasets)
	if c.Friedman != nil {
		fmt.Fprintf(&b, "Friedman $p = %s$", texNumber(c.Friedman.P))
	} else {
		b.WriteString("No Friedman test")
	}
	if cd, ok := c.NemenyiCD["0.05"]; ok {
		fmt.Fprintf(&b, ", Nemenyi CD$_{0.05} = %.3f$", cd)
	}
	b.WriteString(".")
	return b.String()
}

// texNumber formats a p-value for math mode: 4 significant digits, powers
// of ten as \times 10^{e}.
func texNumber(p float64) string {
	s := strconv.FormatFloat(p, 'g', 4, 64)
	if mant, exp, ok := strings.Cut(s, "e"); ok {
		e, _ := strconv.Atoi(exp)
		return fmt.Sprintf("%s \\times 10^{%d}", mant, e)
	}
	return s
}

// texEscapes maps the characters special to LaTeX to text that prints them.
var texEscapes = strings.NewReplacer(
	`\`, `\textbackslash{}`,
	`{`, `\{`,
	`}`, `\}`,
	`_`, `\_`,
	`&`, `\&`,
	`%`, `\%`,
	`#`, `\#`,
	`$`, `\$`,
	`~`, `\textasciitilde{}`,
	`^`, `\textasciicircum{}`,
	`<`, `\textless{}`,
	`>`, `\textgreater{}`,
	`|`, `\textbar{}`,
	"\n", " ",
	"\r", " ",
)

// TeXEscape returns s as LaTeX text that prints s: the characters
// \ { } _ & % # $ ~ ^ < > | are escaped and line breaks become spaces.
func TeXEscape(s string) string {
	return texEscapes.Replace(s)
}
