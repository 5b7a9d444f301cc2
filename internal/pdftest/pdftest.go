// Package pdftest looks at PDFs the way a reader's viewer would, for tests:
// it renders a PDF's first page to an image with poppler's pdftoppm and
// lists its fonts with pdffonts (Debian's poppler-utils).
//
//	pdftest.Require(t) // skips (or fails) without poppler
//	p := pdftest.Open(t, pdf, 100)
//	p.Check(t, 330) // 330 px wide at 100 dpi, not blank, fonts embedded
//
// Without poppler, Require skips the test with a message saying how to
// install it, unless MLDR_REQUIRE_LATEX=1 (as in CI, which installs it with
// LaTeX), when it fails it.
package pdftest

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// RequireEnv is the environment variable that turns missing poppler tools
// from a skip into a failure when it is "1".
const RequireEnv = "MLDR_REQUIRE_LATEX"

// tools are the poppler programs the package runs.
var tools = []string{"pdftoppm", "pdffonts"}

// Require skips t when pdftoppm or pdffonts is missing, or fails it when
// MLDR_REQUIRE_LATEX=1.
func Require(t testing.TB) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv(RequireEnv) == "1" {
				t.Fatalf("%s is missing (%s=1): install Debian's poppler-utils", tool, RequireEnv)
			}
			t.Skipf("%s is missing: install Debian's poppler-utils to run this test (%s=1 makes this a failure)", tool, RequireEnv)
		}
	}
}

// Font is one font of a PDF, as pdffonts lists it.
type Font struct {
	Name, Type string
	Embedded   bool
}

// Page is a PDF's first page rendered, and the PDF's fonts.
type Page struct {
	Image image.Image
	DPI   int
	Fonts []Font
}

// Open renders the first page of pdf at dpi and lists its fonts; it fails t
// if poppler cannot read the PDF.
func Open(t testing.TB, pdf []byte, dpi int) Page {
	t.Helper()
	dir := t.TempDir()
	in := filepath.Join(dir, "figure.pdf")
	if err := os.WriteFile(in, pdf, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "page")
	run(t, "pdftoppm", "-r", strconv.Itoa(dpi), "-png", "-singlefile", in, out)
	b, err := os.ReadFile(out + ".png")
	if err != nil {
		t.Fatalf("reading pdftoppm's image: %v", err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("decoding pdftoppm's image: %v", err)
	}
	return Page{Image: img, DPI: dpi, Fonts: parseFonts(run(t, "pdffonts", in))}
}

// Check fails t unless the page is wantWidth pixels wide (±1, for
// rounding), not blank (some of it is inked, and some of that dark, as
// text and axes are), and uses fonts, every one embedded.
func (p Page) Check(t testing.TB, wantWidth int) {
	t.Helper()
	b := p.Image.Bounds()
	if d := b.Dx() - wantWidth; d < -1 || d > 1 {
		t.Errorf("rendered at %d dpi the page is %d px wide, want %d", p.DPI, b.Dx(), wantWidth)
	}
	inked, dark := Ink(p.Image)
	if inked < 0.01 || dark < 0.001 {
		t.Errorf("the page is nearly blank: %.2f%% of it inked, %.3f%% dark; want at least 1%% and 0.1%%", 100*inked, 100*dark)
	}
	if len(p.Fonts) == 0 {
		t.Error("pdffonts lists no font; want the figure's text in an embedded font")
	}
	for _, f := range p.Fonts {
		if !f.Embedded {
			t.Errorf("font %s (%s) is not embedded", f.Name, f.Type)
		}
	}
}

// Ink returns the shares of img's pixels that are not white and that are
// dark (luminance below a third).
func Ink(img image.Image) (inked, dark float64) {
	b := img.Bounds()
	var n, ink, d int
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			n++
			if r < 0xf000 || g < 0xf000 || bl < 0xf000 {
				ink++
			}
			if 0.2126*float64(r)+0.7152*float64(g)+0.0722*float64(bl) < 0xffff/3.0 {
				d++
			}
		}
	}
	if n == 0 {
		return 0, 0
	}
	return float64(ink) / float64(n), float64(d) / float64(n)
}

// parseFonts reads pdffonts' table: a header, a rule, then one font a
// line: its name, its type (of one or two words), its encoding and the
// columns emb, sub, uni, object and ID.
func parseFonts(out string) []Font {
	var fonts []Font
	lines := strings.Split(strings.TrimSpace(out), "\n")
	for _, l := range lines[min(2, len(lines)):] {
		f := strings.Fields(l)
		if len(f) < 7 {
			continue
		}
		fonts = append(fonts, Font{Name: f[0], Type: strings.Join(f[1:len(f)-6], " "), Embedded: f[len(f)-5] == "yes"})
	}
	return fonts
}

// run runs a poppler tool and returns its output; it fails t if the tool
// fails.
func run(t testing.TB, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}
