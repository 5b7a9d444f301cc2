package plots

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
)

// RankFrequency draws the held labels' counts in descending order against
// ranks 1…m on log axes (in its Meta, which the page's hover reads), says
// in its subtitle how many labels are rare and how many unused, and
// refuses what it cannot draw, naming the entry.
func TestRankFrequency(t *testing.T) {
	counts := []int{3, 0, 120, 1, 40, 0, 5, 9}
	f, err := RankFrequency(counts)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := f.Render(&b, "svg"); err != nil {
		t.Fatal(err)
	}
	m := f.Meta()
	if m.Kind != "curves" || !m.XLog || !m.YLog || len(m.Series) != 1 {
		t.Fatalf("meta: kind %q, xlog %v, ylog %v, %d series; want one curve on log axes", m.Kind, m.XLog, m.YLog, len(m.Series))
	}
	if s := m.Series[0]; !slices.Equal(s.Y, []float64{120, 40, 9, 5, 3, 1}) || !slices.Equal(s.X, []float64{1, 2, 3, 4, 5, 6}) {
		t.Errorf("series: x %v, y %v; want ranks 1…6 and the held counts descending", s.X, s.Y)
	}
	for _, want := range []string{"6 labels held by some row; 3 by 1–5 rows; 2 by none (not drawn)", "Label rank and frequency"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the SVG lacks %q", want)
		}
	}
	for _, tc := range []struct {
		counts []int
		field  string
	}{
		{nil, "counts"},
		{[]int{0, 0}, "counts"},
		{[]int{4, -1}, "counts[1]"},
	} {
		_, err := RankFrequency(tc.counts)
		var ie *InputError
		if !errors.As(err, &ie) || ie.Field != tc.field {
			t.Errorf("RankFrequency(%v): %v, want an *InputError on %s", tc.counts, err, tc.field)
		}
	}
}
