package comparison

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// WriteMarkdown writes t as GitHub-flavoured Markdown: the caption as a
// bold paragraph (with the table's label), then a pipe table with WriteTeX's
// rows and columns (each metric's name with ↑ or ↓), Best in **bold**
// and Second in <ins>underline</ins>, "–" when undefined, each data set
// named on its block's first row; the method's citation key in brackets
// after its name; the caveats after the table. Every name is escaped
// (MarkdownEscape).
func WriteMarkdown(w io.Writer, t *Table) error {
	bw := bufio.NewWriter(w)
	names := make([]string, len(t.Datasets))
	for i, n := range t.Datasets {
		names[i] = MarkdownEscape(n)
	}
	fmt.Fprintf(bw, "**Table")
	if l := labelKey(t.Spec.Label); l != "" {
		fmt.Fprintf(bw, " (%s)", MarkdownEscape(l))
	}
	fmt.Fprintf(bw, ".** Mean ± standard deviation over the folds on %s", englishList(names))
	for _, phrase := range []string{t.Spec.Classifier, t.Spec.Split, t.Spec.Dims} {
		if phrase != "" {
			fmt.Fprintf(bw, "; %s", MarkdownEscape(phrase))
		}
	}
	fmt.Fprint(bw, ". ↑: higher is better, ↓: lower is better; the best of each data set and metric in bold, the second underlined; average ranks (1 = best) with the Friedman p-value and Nemenyi's critical difference over the data sets.\n\n")
	fmt.Fprint(bw, "| Data set | Method |")
	for _, m := range t.Metrics {
		arrow := "↑"
		if m.Lower {
			arrow = "↓"
		}
		fmt.Fprintf(bw, " %s %s |", MarkdownEscape(m.Name), arrow)
	}
	fmt.Fprint(bw, "\n| :-- | :-- |"+strings.Repeat(" --: |", len(t.Metrics))+"\n")
	row := func(first string, j int, cells []Cell) {
		name := MarkdownEscape(t.Name(t.Methods[j]))
		if c, ok := t.Spec.Cites[t.Methods[j]]; ok && c.Key != "" {
			name += " \\[" + MarkdownEscape(c.Key) + "\\]"
		}
		fmt.Fprintf(bw, "| %s | %s |", first, name)
		for _, c := range cells {
			fmt.Fprintf(bw, " %s |", mdStyle.cell(c))
		}
		fmt.Fprint(bw, "\n")
	}
	t.eachRow(func(block, j int, cells []Cell) {
		first := ""
		switch {
		case j > 0:
		case block < len(names):
			first = names[block]
		default:
			first = "*Average rank*"
		}
		row(first, j, cells)
	})
	fmt.Fprint(bw, "| *Friedman p* | |")
	for _, m := range t.Metrics {
		fmt.Fprintf(bw, " %s |", mdStyle.optional(m.FriedmanP, func(v float64) string { return strconv.FormatFloat(v, 'g', 3, 64) }))
	}
	fmt.Fprint(bw, "\n| *Nemenyi CD (α = 0.05)* | |")
	for _, m := range t.Metrics {
		fmt.Fprintf(bw, " %s |", mdStyle.optional(m.CD, func(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }))
	}
	fmt.Fprint(bw, "\n")
	for _, c := range t.Caveats {
		fmt.Fprintf(bw, "\n%s\n", MarkdownEscape(c))
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("comparison: writing comparison.md: %w", err)
	}
	return nil
}

// MarkdownEscape returns s as Markdown text that prints s within a
// paragraph or a table cell (never at the start of a line): the ASCII
// punctuation that GitHub-flavoured Markdown reads inline
// (\ ` * _ { } [ ] < > | ~ ^ $ % & # !) gets a backslash, which CommonMark
// allows before any of them ($ is GitHub's math, | ends a cell, & starts
// an entity, < a tag), and line breaks and tabs become spaces.
func MarkdownEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			b.WriteByte(' ')
		case r < 128 && strings.ContainsRune("\\`*_{}[]<>|~^$%&#!", r):
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
