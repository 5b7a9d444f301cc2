package handlers

import (
	"errors"
	"math"
	"net/http"
	"net/url"
	"testing"

	"gonum.org/v1/plot/vg"

	"mldr/internal/plots"
)

// TestFigureWidth reads ?width= as the figure endpoints do: the named
// widths, lengths in each unit from the least to the most a paper takes,
// and, refused with a 400 naming the parameter and what it may be, every
// other spelling.
func TestFigureWidth(t *testing.T) {
	const refused = `width must be column (3.3in), page (7in) or a length from 2.5in to 8in with its unit, in, cm, mm or pt (3.5in, 8.4cm, 89mm), not `
	for _, c := range []struct {
		in   string
		want vg.Length // in points; 0 for the figure's own size
		msg  string    // the error, "" for none
	}{
		{"", 0, ""},
		{"column", plots.ColumnWidth, ""},
		{"page", plots.PageWidth, ""},
		{"3.3in", 3.3 * 72, ""},
		{"7in", 7 * 72, ""},
		{"2.5in", 2.5 * 72, ""},
		{"8in", 8 * 72, ""},
		{"8.4cm", 8.4 / 2.54 * 72, ""},
		{"89mm", 89 / 25.4 * 72, ""},
		{"252pt", 252, ""},
		{".5in", 0, refused + `".5in"`}, // a length, but below the least
		{"3.5", 0, refused + `"3.5"`},   // no unit
		{"in", 0, refused + `"in"`},
		{"3.5px", 0, refused + `"3.5px"`},
		{"3.5IN", 0, refused + `"3.5IN"`},
		{"3.5 in", 0, refused + `"3.5 in"`},
		{"2in", 0, refused + `"2in"`},
		{"9in", 0, refused + `"9in"`},
		{"-3in", 0, refused + `"-3in"`},
		{"+3in", 0, refused + `"+3in"`},
		{"1e1cm", 0, refused + `"1e1cm"`},
		{"0x3p0in", 0, refused + `"0x3p0in"`},
		{"NaNin", 0, refused + `"NaNin"`},
		{"3.3.3in", 0, refused + `"3.3.3in"`},
		{"Column", 0, refused + `"Column"`},
		{"full", 0, refused + `"full"`},
	} {
		t.Run(c.in, func(t *testing.T) {
			got, err := figureWidth(c.in)
			if c.msg == "" {
				if err != nil || math.Abs(float64(got-c.want)) > 1e-9 {
					t.Errorf("got %v pt, %v; want %v pt", got, err, c.want)
				}
				return
			}
			var he *httpError
			if !errors.As(err, &he) || he.status != http.StatusBadRequest || he.field != "width" || he.msg != c.msg {
				t.Fatalf("got %v pt, %#v; want a 400 on width saying %q", got, err, c.msg)
			}
		})
	}
}

// TestParseFigureFile: ?download= and ?width= together, each checked.
func TestParseFigureFile(t *testing.T) {
	for _, c := range []struct {
		query    string
		download bool
		width    vg.Length
		field    string // the refused parameter, "" for none
	}{
		{"", false, 0, ""},
		{"download=1&width=column", true, plots.ColumnWidth, ""},
		{"download=0&width=page", false, plots.PageWidth, ""},
		{"download=yes&width=page", false, 0, "download"},
		{"download=1&width=huge", true, 0, "width"},
	} {
		t.Run(c.query, func(t *testing.T) {
			q, err := url.ParseQuery(c.query)
			if err != nil {
				t.Fatal(err)
			}
			f, err := parseFigureFile(q)
			var he *httpError
			switch {
			case c.field == "" && (err != nil || f != figureFile{download: c.download, width: c.width}):
				t.Errorf("got %+v, %v; want download %v, width %v pt", f, err, c.download, c.width)
			case c.field != "" && (!errors.As(err, &he) || he.field != c.field):
				t.Errorf("got %+v, %v; want a 400 on %s", f, err, c.field)
			}
		})
	}
}
