package handlers_test

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"mldr/internal/comparison"
	"mldr/internal/jobs"
)

// hostileName is a data set name made of what LaTeX and Markdown read as
// commands: the tables must print it as it is.
const hostileName = `50% & $x_1$ {#} \\ ~^`

// latexTools returns the paths of pdflatex, pdftotext, pdftoppm and
// pdffonts, or skips the test (fails it when MLDR_REQUIRE_LATEX=1) when one
// is missing: Debian's texlive-latex-recommended and poppler-utils, which
// scripts/test installs.
func latexTools(t *testing.T) map[string]string {
	t.Helper()
	tools := map[string]string{}
	for _, name := range []string{"pdflatex", "pdftotext", "pdftoppm", "pdffonts"} {
		p, err := exec.LookPath(name)
		if err != nil {
			if os.Getenv("MLDR_REQUIRE_LATEX") == "1" {
				t.Fatalf("%s is missing: install Debian's texlive-latex-recommended and poppler-utils (scripts/test does)", name)
			}
			t.Skipf("%s is missing: install Debian's texlive-latex-recommended and poppler-utils to compile the tables", name)
		}
		tools[name] = p
	}
	return tools
}

// TestStudyTablesCompile runs a small study over three data sets, one of
// them named hostileName, and compiles its tables for papers with
// pdflatex: the standalone document as served, and the fragment \input
// into a document that defines \mldrcite. It reads the PDFs back with
// pdftotext (the display names, the metric names, the data set names as
// written, the best and second of each column as the test works them out
// from comparison.json, marked up in the source, the caveat at N = 3),
// checks that a bold font is embedded, and renders the page to PNG with
// pdftoppm (kept in MLDR_SCREENSHOTS when set), which must not be blank.
func TestStudyTablesCompile(t *testing.T) {
	tools := latexTools(t)
	s := newJobServer(t, 1, 0, nil)
	names := []string{"emotions-like", hostileName, "scene_like"}
	var ids []string
	for i, name := range names {
		resp, body := s.upload("/api/datasets", part{name: "file", file: fmt.Sprintf("set%d.csv", i+1), body: studyCSV(uint64(i + 11))}, part{name: "name", body: name})
		if resp.StatusCode != http.StatusCreated {
			t.Fatalf("upload %q: got %d %s, want 201", name, resp.StatusCode, body)
		}
		d := decode[apiDataset](t, body)
		if d.Name != name {
			t.Fatalf("upload: the data set is named %q, want %q", d.Name, name)
		}
		ids = append(ids, d.ID)
	}
	resp, body := s.submit(`{"datasets":["` + strings.Join(ids, `","`) + `"],"methods":["pca","mddmp","cplst"],"params":{"d":2},"split":{"kind":"kfold","folds":3},"evaluate":{"classifier":"ridge"}}`)
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("submit: got %d %v, want 202", resp.StatusCode, body)
	}
	id := body["id"].(string)
	s.waitJob(id, jobs.Succeeded)
	get := func(path string) []byte {
		t.Helper()
		resp, b := s.do("GET", "/api/jobs/"+id+path, "", nil)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: got %d %s", path, resp.StatusCode, b)
		}
		return b
	}
	cf := decode[comparison.File](t, get("/comparison.json"))
	metrics := []struct{ key, name string }{
		{"hamming_loss", "Hamming loss"}, {"ranking_loss", "Ranking loss"}, {"one_error", "One-error"},
		{"coverage", "Coverage"}, {"average_precision", "Average precision"},
	}
	fragment := get("/comparison.tex")
	tests := []struct {
		name  string
		files map[string][]byte // the files of the directory pdflatex runs in
		main  string
		cites []string // what \mldrcite prints
	}{
		{"standalone", map[string][]byte{"table.tex": get("/comparison-standalone.tex")}, "table.tex", nil},
		{"fragment", map[string][]byte{"comparison.tex": fragment, "paper.tex": []byte(
			"\\documentclass{article}\n\\usepackage{booktabs}\n\\usepackage[a4paper,landscape,margin=1.5cm]{geometry}\n" +
				"\\newcommand{\\mldrcite}[1]{~[#1]}\n\\begin{document}\n\\input{comparison.tex}\n\\end{document}\n")},
			"paper.tex", []string{"[zhang2008mddm]", "[chen2012cplst]", "[jolliffe2002pca]"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a stuck TeX must not hang the suite
			defer cancel()
			dir := t.TempDir()
			for name, b := range tc.files {
				if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			run := func(tool string, args ...string) []byte {
				t.Helper()
				cmd := exec.CommandContext(ctx, tools[tool], args...)
				cmd.Dir = dir
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("%s %s: %v\n%s", tool, strings.Join(args, " "), err, out)
				}
				return out
			}
			run("pdflatex", "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape", tc.main)
			pdf := strings.TrimSuffix(tc.main, ".tex") + ".pdf"
			text := readableText(string(run("pdftotext", "-layout", pdf, "-")))
			var want []string
			for _, m := range metrics {
				want = append(want, m.name)
			}
			want = append(want, "ori", "PCA", "MDDM (orthonormal directions)", "CPLST", "Average rank", "Friedman p", "Nemenyi CD",
				"emotions-like", "scene like", // OT1's \_ is a rule, which pdftotext reads as a space
				"50% & $x 1$ {#} \\\\ ~^",
				"With N = 3 data sets the smallest two-sided Wilcoxon p-value attainable is 0.25")
			want = append(want, tc.cites...)
			for _, w := range want {
				if !strings.Contains(text, w) {
					t.Errorf("the PDF's text has no %q:\n%s", w, text)
				}
			}
			// Each column's best and second on each data set, worked out
			// here from comparison.json, are in the PDF and marked up so.
			for _, m := range metrics {
				i := slices.IndexFunc(cf.Comparisons, func(c comparison.Comparison) bool { return c.Metric == m.key && c.D == nil })
				if i < 0 {
					t.Fatalf("comparison.json has no %s at the methods' own d", m.key)
				}
				c := cf.Comparisons[i]
				for di := range c.Datasets {
					best, second := bestTwo(c.Scores[di], c.Better == "lower")
					if best == "" || second == "" {
						t.Fatalf("%s on %s: no best and second among %v", m.key, c.DatasetNames[di], c.Scores[di])
					}
					for _, v := range []struct{ num, markup string }{{best, `\textbf{` + best + `}`}, {second, `\underline{` + second + `}`}} {
						if !strings.Contains(text, v.num) || !bytes.Contains(fragment, []byte(v.markup)) {
							t.Errorf("%s on %s: %s is not in the PDF's text or not marked up %s in the source", m.key, c.DatasetNames[di], v.num, v.markup)
						}
					}
				}
			}
			if fonts := string(run("pdffonts", pdf)); !strings.Contains(fonts, "CMBX") {
				t.Errorf("no bold font in the PDF (the best values are bold):\n%s", fonts)
			}
			run("pdftoppm", "-png", "-r", "80", "-singlefile", pdf, "page")
			checkNotBlank(t, filepath.Join(dir, "page.png"))
			if shots := os.Getenv("MLDR_SCREENSHOTS"); shots != "" {
				b, err := os.ReadFile(filepath.Join(dir, "page.png"))
				if err == nil {
					err = os.WriteFile(filepath.Join(shots, "study-table-"+tc.name+".png"), b, 0o644)
				}
				if err != nil {
					t.Error(err)
				}
			}
		})
	}
}

// readableText undoes what pdftotext makes of OT1's ASCII accents: the
// tilde and circumflex LaTeX prints for \textasciitilde and
// \textasciicircum come out as the spacing modifier letters.
func readableText(s string) string {
	return strings.NewReplacer("˜", "~", "ˆ", "^").Replace(s)
}

// bestTwo are the best and second distinct scores of a row as the tables
// write them (4 decimals), lower or higher being better.
func bestTwo(row []*float64, lower bool) (best, second string) {
	var vals []float64
	for _, v := range row {
		if v == nil {
			continue
		}
		r, _ := strconv.ParseFloat(strconv.FormatFloat(*v, 'f', 4, 64), 64)
		if !slices.Contains(vals, r) {
			vals = append(vals, r)
		}
	}
	slices.Sort(vals)
	if !lower {
		slices.Reverse(vals)
	}
	if len(vals) < 2 {
		return "", ""
	}
	return strconv.FormatFloat(vals[0], 'f', 4, 64), strconv.FormatFloat(vals[1], 'f', 4, 64)
}

// checkNotBlank fails t unless the PNG at path has ink: at least 0.5 % of
// its pixels dark, spread over at least a tenth of its rows (a table, not
// a stray mark).
func checkNotBlank(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("the rendered page: %v", err)
	}
	b := img.Bounds()
	dark, rows := 0, 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		inRow := false
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if (r+g+bl)/3 < 0x8000 {
				dark++
				inRow = true
			}
		}
		if inRow {
			rows++
		}
	}
	total := b.Dx() * b.Dy()
	if frac := float64(dark) / float64(total); frac < 0.005 || rows < b.Dy()/10 || math.IsNaN(frac) {
		t.Errorf("the rendered page looks blank: %d of %d pixels dark, on %d of %d rows", dark, total, rows, b.Dy())
	}
}
