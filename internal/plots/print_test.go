package plots

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"

	"mldr/internal/pdftest"
)

// Legibility in print: the least text and line sizes of a printed figure,
// in printed points.
const (
	minPrintedText = 6.0
	minPrintedLine = 0.5
)

// recorder is a canvas that draws nothing and records the text and line
// widths it is given.
type recorder struct {
	nopCanvas
	texts   []string
	textAt  []vg.Length // where each text starts
	fills   int
	minFont vg.Length // the smallest font, 0 before any text
	minLine vg.Length // the thinnest line of positive width, 0 before any
}

func (r *recorder) FillString(f font.Face, pt vg.Point, s string) {
	r.texts = append(r.texts, s)
	r.textAt = append(r.textAt, pt.X)
	if f.Font.Size > 0 && (r.minFont == 0 || f.Font.Size < r.minFont) {
		r.minFont = f.Font.Size
	}
}

func (r *recorder) SetLineWidth(w vg.Length) {
	if w > 0 && (r.minLine == 0 || w < r.minLine) {
		r.minLine = w
	}
}

func (r *recorder) Fill(vg.Path) { r.fills++ }

// record lays f out as Render does and records what it draws.
func record(f *Figure) *recorder {
	w, h := f.size()
	r := &recorder{nopCanvas: nopCanvas{w: w, h: h}}
	f.drawScene(f.canvas(r), f.build())
	return r
}

// TestPrintLegible lays every golden figure out a column and a page wide:
// the figure is exactly that wide; where its content fits at the print
// scale, no text prints below minPrintedText, but in the heatmap of 50
// labels, whose names are set small on screen already; no line prints
// thinner than minPrintedLine. The critical-difference diagrams and the
// metric curves fit at both widths.
func TestPrintLegible(t *testing.T) {
	mustFit := map[string]bool{"cd": true, "cd_none": true, "curves": true, "curves_log": true}
	smallText := map[string]bool{"nmi_part": true}
	for _, c := range goldenCases(t) {
		for _, w := range []vg.Length{ColumnWidth, PageWidth} {
			t.Run(c.name+"/"+inches(w), func(t *testing.T) {
				g, err := c.fig.ForPrint(w)
				if err != nil {
					t.Fatal(err)
				}
				if gw, _ := g.size(); math.Abs(float64(gw-w)) > 1e-6 {
					t.Errorf("got %v pt wide, want %v", gw, w)
				}
				fits := math.Abs(g.zoom()-printScale) < 1e-9
				if !fits {
					t.Logf("its content needs more room: drawn at %.3f rather than %v", g.zoom(), printScale)
				}
				if mustFit[c.name] && !fits {
					t.Errorf("drawn at %.3f, want the print scale %v: the figure should fit %s", g.zoom(), printScale, inches(w))
				}
				r := record(g)
				k := vg.Length(g.zoom())
				if text := k * r.minFont; fits && !smallText[c.name] && text < minPrintedText-1e-9 {
					t.Errorf("the smallest text prints at %.2f pt, want at least %v", text, minPrintedText)
				}
				if line := k * r.minLine; line < minPrintedLine-1e-9 {
					t.Errorf("the thinnest line prints at %.2f pt, want at least %v", line, minPrintedLine)
				}
			})
		}
	}
}

func inches(w vg.Length) string { return fmt.Sprintf("%gin", float64(w/vg.Inch)) }

// TestForPrintRefused asks for widths no paper has: an error, no figure.
func TestForPrintRefused(t *testing.T) {
	f, err := Curves(curvesData())
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []vg.Length{0, -ColumnWidth, MinPrintWidth - 0.01, MaxPrintWidth + 0.01, vg.Length(math.NaN()), vg.Length(math.Inf(1))} {
		if g, err := f.ForPrint(w); err == nil || g != nil {
			t.Errorf("ForPrint(%v pt): got %v, %v; want an error", w, g, err)
		}
	}
	for _, w := range []vg.Length{MinPrintWidth, MaxPrintWidth} {
		if _, err := f.ForPrint(w); err != nil {
			t.Errorf("ForPrint(%v pt): %v", w, err)
		}
	}
}

// TestMetaPrinted: a printed figure's Meta gives its printed size, and its
// data area inside it, as the page's hover would read it.
func TestMetaPrinted(t *testing.T) {
	f, err := Curves(curvesData())
	if err != nil {
		t.Fatal(err)
	}
	g, err := f.ForPrint(ColumnWidth)
	if err != nil {
		t.Fatal(err)
	}
	m, own := g.Meta(), f.Meta()
	if m.Width != ColumnWidth.Points() || !(m.Height > 0) {
		t.Errorf("got %v × %v pt, want %v pt wide", m.Width, m.Height, ColumnWidth.Points())
	}
	if !(0 < m.X0 && m.X0 < m.X1 && m.X1 < m.Width && 0 < m.Y0 && m.Y0 < m.Y1 && m.Y1 < m.Height) {
		t.Errorf("got data area (%v, %v)–(%v, %v) in %v×%v, want a rectangle inside", m.X0, m.Y0, m.X1, m.Y1, m.Width, m.Height)
	}
	if m.XMin != own.XMin || m.XMax != own.XMax || m.YMin != own.YMin || m.YMax != own.YMax {
		t.Errorf("got axis ranges %v…%v, %v…%v; want the figure's own %v…%v, %v…%v", m.XMin, m.XMax, m.YMin, m.YMax, own.XMin, own.XMax, own.YMin, own.YMax)
	}
}

// TestCP1252Text: text in the regular face that Windows-1252 holds is
// written in it, as text, where the layout measured it; a character it
// lacks, and bold text, is drawn as glyph outlines.
func TestCP1252Text(t *testing.T) {
	face := func(bold bool) font.Face {
		sty := textStyle(12, bold, inkColor())
		return sty.Handler.Cache().Lookup(sty.Font, sty.Font.Size)
	}
	regular, bold := face(false), face(true)
	for _, c := range []struct {
		name  string
		face  font.Face
		s     string
		texts []string // as vgpdf gets them, in Windows-1252
		at    []string // the prefix of s each starts after
		fills int
	}{
		{"ascii", regular, "CD = 1.25", []string{"CD = 1.25"}, []string{""}, 0},
		{"latin", regular, "Demšar…", []string{"Dem\x9aar\x85"}, []string{""}, 0},
		{"greek", regular, "at α = 0.05", []string{"at ", " = 0.05"}, []string{"", "at α"}, 1},
		{"two", regular, "λ∞", nil, nil, 2},
		{"bold", bold, "Title", nil, nil, 5},
		{"empty", regular, "", nil, nil, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := &recorder{nopCanvas: nopCanvas{w: 100, h: 100}}
			cp1252Text{r}.FillString(c.face, vg.Point{X: 10, Y: 20}, c.s)
			if fmt.Sprintf("%q", r.texts) != fmt.Sprintf("%q", c.texts) {
				t.Errorf("got text %q, want %q", r.texts, c.texts)
			}
			for i, before := range c.at {
				if i < len(r.textAt) && math.Abs(float64(r.textAt[i]-10-c.face.Width(before))) > 1e-9 {
					t.Errorf("text %d at x = %v, want %v", i, r.textAt[i], 10+c.face.Width(before))
				}
			}
			if r.fills != c.fills {
				t.Errorf("got %d glyph outlines, want %d", r.fills, c.fills)
			}
		})
	}
}

// TestPDF renders every golden figure as PDF at its own size, a column and
// a page wide, and looks at each page as poppler renders it at 100 dpi:
// as wide as asked, not blank, its fonts embedded.
func TestPDF(t *testing.T) {
	pdftest.Require(t)
	const dpi = 100
	for _, c := range goldenCases(t) {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			for _, w := range []vg.Length{0, ColumnWidth, PageWidth} {
				f := c.fig
				if w > 0 {
					var err error
					if f, err = f.ForPrint(w); err != nil {
						t.Fatal(err)
					}
				}
				var buf bytes.Buffer
				if err := f.Render(&buf, "pdf"); err != nil {
					t.Fatalf("Render(pdf): %v", err)
				}
				if !bytes.HasPrefix(buf.Bytes(), []byte("%PDF-")) {
					t.Fatalf("Render(pdf) wrote %.20q, want a PDF", buf.Bytes())
				}
				fw, _ := f.size()
				pdftest.Open(t, buf.Bytes(), dpi).Check(t, int(math.Round(float64(fw/vg.Inch)*dpi)))
			}
		})
	}
}

// TestWrapKeepsEquations: a narrow figure's subtitle breaks between words,
// never within "α = 0.10".
func TestWrapKeepsEquations(t *testing.T) {
	sty := subtitleStyle()
	s := "a bar joins methods that do not differ significantly (Nemenyi test, α = 0.10)"
	for _, c := range []struct {
		width vg.Length
		want  string // a line of the wrapped text
	}{
		{sty.Width(s), s},
		{sty.Width("a bar joins methods that do not differ significantly (Nemenyi test, α"), "α = 0.10)"},
		{sty.Width("a bar joins methods that do not differ significantly (Nemenyi test, α ="), "α = 0.10)"},
		{sty.Width("α = 0.10)"), "α = 0.10)"},
		{sty.Width("α"), "α = 0.10)"}, // too narrow for it: a line too long, never a split
	} {
		lines := strings.Split(wrap(sty, s, c.width), "\n")
		if !slices.Contains(lines, c.want) && !slices.ContainsFunc(lines, func(l string) bool { return strings.HasSuffix(l, " "+c.want) }) {
			t.Errorf("wrapped at %.1f pt: got lines %q, want one that is or ends with %q", c.width, lines, c.want)
		}
	}
	if got, want := unbreakable("= d = 3 keeps x ="), []string{"=", "d = 3", "keeps", "x ="}; !slices.Equal(got, want) {
		t.Errorf("unbreakable: got %q, want %q", got, want)
	}
}
