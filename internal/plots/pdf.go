package plots

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	xfont "golang.org/x/image/font"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
	"golang.org/x/text/encoding/charmap"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/vgpdf"
)

// pdf renders the figure as a one-page PDF of its drawn size, with its
// fonts embedded so that it prints as it shows. Its creation date is the
// time of rendering, so two renderings differ there.
func (f *Figure) pdf() ([]byte, error) {
	c := vgpdf.New(f.size())
	c.EmbedFonts(true)
	if err := f.drawSafely(cp1252Text{c}); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("plots: writing PDF: %w", err)
	}
	return buf.Bytes(), nil
}

// cp1252Text is a canvas that writes text for vgpdf, which has two limits
// (gonum/plot v0.17, vgpdf.go): its embedded fonts are encoded in
// Windows-1252, while the figures' text is UTF-8; and it files every font
// it embeds under one name (font.z), so that a PDF holds one font program,
// the last registered, and its bold text showed in the regular face. So
// text in the regular face is written as text, in Windows-1252, where
// the character has a code there; any other character (α, λ, ∞, −) and
// all bold text is drawn as the outlines of its glyphs, where the layout
// measured them, in the same font.
type cp1252Text struct{ vg.Canvas }

// FillString implements vg.Canvas.
func (c cp1252Text) FillString(f font.Face, pt vg.Point, s string) {
	plain := f.Font.Weight == xfont.WeightNormal && f.Font.Style == xfont.StyleNormal
	var run []byte // the current run of text, in Windows-1252
	start := 0     // where it starts in s
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if b, ok := charmap.Windows1252.EncodeRune(r); ok && plain {
			run = append(run, b)
			i += n
			continue
		}
		c.text(f, pt, s[:start], run)
		c.glyph(f, vg.Point{X: pt.X + f.Width(s[:i]), Y: pt.Y}, r)
		i += n
		run, start = run[:0], i
	}
	c.text(f, pt, s[:start], run)
}

// text writes run, which follows before in the string that starts at pt.
func (c cp1252Text) text(f font.Face, pt vg.Point, before string, run []byte) {
	if len(run) > 0 {
		c.Canvas.FillString(f, vg.Point{X: pt.X + f.Width(before), Y: pt.Y}, string(run))
	}
}

// glyph fills the outline of r's glyph in f with its origin at pt. A font
// without the glyph draws its "missing" glyph, as text would.
func (c cp1252Text) glyph(f font.Face, pt vg.Point, r rune) {
	var buf sfnt.Buffer
	idx, err := f.Face.GlyphIndex(&buf, r)
	if err != nil {
		return
	}
	// At a ppem of unitsPerEm/64 the outline's 26.6 coordinates are font
	// units, as in font.Face.Width.
	upem := f.Face.UnitsPerEm()
	segs, err := f.Face.LoadGlyph(&buf, idx, fixed.Int26_6(upem), nil)
	if err != nil {
		return
	}
	k := f.Font.Size / vg.Length(upem)
	at := func(p fixed.Point26_6) vg.Point { // sfnt's y grows down
		return vg.Point{X: pt.X + k*vg.Length(p.X), Y: pt.Y - k*vg.Length(p.Y)}
	}
	var p vg.Path
	for _, s := range segs {
		switch s.Op {
		case sfnt.SegmentOpMoveTo:
			if len(p) > 0 {
				p.Close()
			}
			p.Move(at(s.Args[0]))
		case sfnt.SegmentOpLineTo:
			p.Line(at(s.Args[0]))
		case sfnt.SegmentOpQuadTo:
			p.QuadTo(at(s.Args[0]), at(s.Args[1]))
		case sfnt.SegmentOpCubeTo:
			p.CubeTo(at(s.Args[0]), at(s.Args[1]), at(s.Args[2]))
		}
	}
	if len(p) > 0 {
		p.Close()
		c.Fill(p)
	}
}
