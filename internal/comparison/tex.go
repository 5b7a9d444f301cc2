package comparison

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// CiteMacro is the command the TeX tables put after each method's name
// with its BibTeX key: \providecommand makes it print nothing unless the
// document defines it first, e.g. \newcommand{\mldrcite}[1]{~\cite{#1}}.
const CiteMacro = `\mldrcite`

// WriteTeX writes t as a LaTeX fragment to \input{} in a document that
// loads booktabs: a comment naming the study and, for each cited method,
// its BibTeX key and reference; \providecommand of CiteMacro; then one
// table environment (\small) with the caption (the data sets, the
// classifier, the split, d and what the marks mean), the \label, and a
// tabular with booktabs rules (\toprule, \midrule, \bottomrule): the
// columns Data set, Method and one per metric (its name and $\uparrow$ or
// $\downarrow$, higher or lower being better), a block of rows per data
// set, each cell "mean $\pm$ std" (-- when undefined), Best in \textbf and
// Second in \underline; the average ranks; the Friedman p and the Nemenyi
// CD of each metric. Below the tabular, in \footnotesize, the caveats of
// the tests at this size. Every name is escaped (TeXEscape).
func WriteTeX(w io.Writer, t *Table) error {
	bw := bufio.NewWriter(w)
	writeTeXFragment(bw, t, false)
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("comparison: writing comparison.tex: %w", err)
	}
	return nil
}

// WriteStandaloneTeX writes t as a complete document for pdflatex: the
// class article on a landscape A4 page (geometry, 1.5 cm margins, no page
// number), booktabs, and WriteTeX's fragment, its tabular scaled down to
// the text width (graphicx's \resizebox) when wider. It needs nothing
// beyond Debian's texlive-latex-recommended.
func WriteStandaloneTeX(w io.Writer, t *Table) error {
	bw := bufio.NewWriter(w)
	fmt.Fprint(bw, "\\documentclass{article}\n\\usepackage[utf8]{inputenc}\n\\usepackage{booktabs}\n\\usepackage{graphicx}\n"+
		"\\usepackage[a4paper,landscape,margin=1.5cm]{geometry}\n\\pagestyle{empty}\n\\newsavebox{\\mldrtable}\n\\begin{document}\n")
	writeTeXFragment(bw, t, true)
	fmt.Fprint(bw, "\\end{document}\n")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("comparison: writing comparison-standalone.tex: %w", err)
	}
	return nil
}

// writeTeXFragment writes WriteTeX's fragment; fit puts the tabular in
// the box \mldrtable first, to scale it down to the line's width when
// wider (the document declares the box and loads graphicx).
func writeTeXFragment(w io.Writer, t *Table, fit bool) {
	fmt.Fprintf(w, "%% A table of study %s, written by MLDR Explorer. \\input{} it in a document that\n", commentSafe(t.Spec.Study))
	fmt.Fprint(w, "% loads booktabs (\\usepackage{booktabs}).\n")
	var cited []string
	for _, m := range t.Methods {
		if c, ok := t.Spec.Cites[m]; ok && c.Key != "" {
			cited = append(cited, fmt.Sprintf("%%   %-22s %s: %s", commentSafe(c.Key), commentSafe(t.Name(m)), commentSafe(c.Reference)))
		}
	}
	if len(cited) > 0 {
		fmt.Fprintf(w, "%% Each method's name is followed by %s{KEY}, which prints nothing unless the\n", CiteMacro)
		fmt.Fprintf(w, "%% document defines it before the \\input, e.g. \\newcommand{%s}[1]{~\\cite{#1}},\n", CiteMacro)
		fmt.Fprint(w, "% with bibliography entries under these keys:\n")
		fmt.Fprintln(w, strings.Join(cited, "\n"))
	}
	fmt.Fprintf(w, "\\providecommand{%s}[1]{}\n", CiteMacro)
	// The caption stands above the table, where the standard classes
	// leave no room below it: 4 pt keep it off the top rule, within this
	// table only.
	fmt.Fprint(w, "\\begin{table}[htbp]\n\\centering\n\\small\n\\setlength{\\belowcaptionskip}{4pt}\n")
	fmt.Fprintf(w, "\\caption{%s}\n", texCaption(t))
	if l := labelKey(t.Spec.Label); l != "" {
		fmt.Fprintf(w, "\\label{%s}\n", l)
	}
	if fit {
		fmt.Fprint(w, "\\sbox{\\mldrtable}{%\n")
	}
	fmt.Fprintf(w, "\\begin{tabular}{ll%s}\n\\toprule\n", strings.Repeat("r", len(t.Metrics)))
	fmt.Fprint(w, "Data set & Method")
	for _, m := range t.Metrics {
		arrow := `$\uparrow$`
		if m.Lower {
			arrow = `$\downarrow$`
		}
		fmt.Fprintf(w, " & %s %s", TeXEscape(m.Name), arrow)
	}
	fmt.Fprint(w, " \\\\\n")
	row := func(first string, j int, cells []Cell) {
		fmt.Fprintf(w, "%s & %s", first, TeXEscape(t.Name(t.Methods[j])))
		if c, ok := t.Spec.Cites[t.Methods[j]]; ok && c.Key != "" {
			fmt.Fprintf(w, "%s{%s}", CiteMacro, citeKey(c.Key))
		}
		for _, c := range cells {
			fmt.Fprintf(w, " & %s", texStyle.cell(c))
		}
		fmt.Fprint(w, " \\\\\n")
	}
	t.eachRow(func(block, j int, cells []Cell) {
		first := ""
		switch {
		case j > 0:
		case block < len(t.Datasets):
			first = TeXEscape(t.Datasets[block])
		default:
			first = "Average rank"
		}
		if j == 0 {
			fmt.Fprint(w, "\\midrule\n")
		}
		row(first, j, cells)
	})
	fmt.Fprint(w, "\\midrule\n\\multicolumn{2}{l}{Friedman $p$}")
	for _, m := range t.Metrics {
		fmt.Fprintf(w, " & %s", texStyle.optional(m.FriedmanP, func(v float64) string { return "$" + texNumber(v) + "$" }))
	}
	fmt.Fprint(w, " \\\\\n\\multicolumn{2}{l}{Nemenyi CD ($\\alpha = 0.05$)}")
	for _, m := range t.Metrics {
		fmt.Fprintf(w, " & %s", texStyle.optional(m.CD, func(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }))
	}
	fmt.Fprint(w, " \\\\\n\\bottomrule\n\\end{tabular}\n")
	if fit {
		fmt.Fprint(w, "}\n\\ifdim\\wd\\mldrtable>\\linewidth\\resizebox{\\linewidth}{!}{\\usebox{\\mldrtable}}\\else\\usebox{\\mldrtable}\\fi\n")
	}
	if len(t.Caveats) > 0 {
		fmt.Fprint(w, "\n\\smallskip\n\\parbox{\\linewidth}{\\footnotesize\n")
		for _, c := range t.Caveats {
			fmt.Fprintf(w, "%s\n", TeXEscape(c))
		}
		fmt.Fprint(w, "}\n")
	}
	fmt.Fprint(w, "\\end{table}\n")
}

// texCaption says what the table shows: the data sets, the classifier,
// the split, d, and what its marks and arrows mean.
func texCaption(t *Table) string {
	names := make([]string, len(t.Datasets))
	for i, n := range t.Datasets {
		names[i] = TeXEscape(n)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Mean $\\pm$ standard deviation over the folds on %s", englishList(names))
	for _, phrase := range []string{t.Spec.Classifier, t.Spec.Split, t.Spec.Dims} {
		if phrase != "" {
			b.WriteString("; " + TeXEscape(phrase))
		}
	}
	b.WriteString(". $\\uparrow$: higher is better, $\\downarrow$: lower is better; the best of each data set and metric in bold, the second underlined; average ranks (1 = best) with the Friedman $p$-value and Nemenyi's critical difference over the data sets.")
	return b.String()
}

// englishList joins names as "a, b and c".
func englishList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// texNumber formats a p-value for math mode: 3 significant digits, powers
// of ten as \times 10^{e}.
func texNumber(p float64) string {
	s := strconv.FormatFloat(p, 'g', 3, 64)
	if mant, exp, ok := strings.Cut(s, "e"); ok {
		e, _ := strconv.Atoi(exp)
		return fmt.Sprintf("%s \\times 10^{%d}", mant, e)
	}
	return s
}

// labelKey keeps of s the characters safe in a \label key.
func labelKey(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == ':', r == '-', r == '.':
			return r
		}
		return -1
	}, s)
}

// citeKey keeps of s the characters safe in a \cite key.
func citeKey(s string) string { return labelKey(s) }

// commentSafe puts s on one line of a TeX comment.
func commentSafe(s string) string {
	return strings.NewReplacer("\n", " ", "\r", " ").Replace(s)
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
	"\t", " ",
)

// TeXEscape returns s as LaTeX text that prints s: the characters
// \ { } _ & % # $ ~ ^ < > | are escaped, line breaks and tabs become
// spaces, and {} is put between two characters that TeX's fonts would
// join into one (two hyphens into a dash, two backquotes or two
// apostrophes into curly quotes, an exclamation or question mark and a
// backquote into an inverted mark, two commas into a low quote), so that
// they print as written.
func TeXEscape(s string) string {
	e := texEscapes.Replace(s)
	var b strings.Builder
	for i := 0; i < len(e); i++ {
		b.WriteByte(e[i])
		if i+1 < len(e) && strings.IndexByte("-`',!?", e[i]) >= 0 && strings.IndexByte("-`',", e[i+1]) >= 0 {
			b.WriteString("{}")
		}
	}
	return b.String()
}
