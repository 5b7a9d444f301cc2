package analysis

import (
	"strings"
	"testing"
)

// TestSeedDim: on multi-dimensional data with neither d nor thr, sdem, pca
// and mds keep seed 003's d′ = ΣK_j − q (here 2 + 3 + 1 = 6) and say so;
// d or thr still decide when given, other methods and multi-label data keep
// the threshold's default; a cached decomposition chooses d′ as Fit does,
// and so does a fit from shard statistics.
func TestSeedDim(t *testing.T) {
	classes := []int{3, 4, 2}
	if got := SeedDim("sdem", classes); got != 6 {
		t.Fatalf("SeedDim(sdem, %v) = %d, want 6", classes, got)
	}
	for _, c := range []struct {
		id      string
		classes []int
	}{{"lda", classes}, {"ge-hamming", classes}, {"pca", nil}} {
		if got := SeedDim(c.id, c.classes); got != 0 {
			t.Errorf("SeedDim(%s, %v) = %d, want 0", c.id, c.classes, got)
		}
	}
	md := tuMultiDim(3, 200, 12, classes)
	for _, id := range seedDimMethods {
		m, err := Fit(t.Context(), id, md, Params{}, nil)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		if m.Dim != 6 || !strings.Contains(strings.Join(m.Notes, " "), "d = ΣK_j − q = 6") {
			t.Errorf("%s: d = %d, notes %q; want 6 and a note", id, m.Dim, m.Notes)
		}
		for _, p := range []Params{{D: 2}, {Thr: 0.5}} {
			given, err := Fit(t.Context(), id, md, p, nil)
			if err != nil {
				t.Fatalf("%s %+v: %v", id, p, err)
			}
			want, _ := m.Choose(p)
			if given.Dim != want.Dim || strings.Contains(strings.Join(given.Notes, " "), "ΣK_j") {
				t.Errorf("%s %+v: d = %d (notes %q), want %d and no note of seed 003", id, p, given.Dim, given.Notes, want.Dim)
			}
		}
		if id == "mds" {
			continue // no decomposition to cache, no shard statistics
		}
		wide, err := Fit(t.Context(), id, md, Params{MaxDim: MaxDimAll}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if c, err := wide.Choose(Params{}); err != nil || c.Dim != 6 {
			t.Errorf("%s: Choose(no d, no thr) on every eigenpair: d = %v (%v), want 6", id, c, err)
		}
		part, err := ShardStats(t.Context(), id, Params{}, md, nil)
		if err != nil {
			t.Fatal(err)
		}
		if fm, err := FitFromPartial(t.Context(), id, Params{}, part, nil); err != nil || fm.Dim != 6 {
			t.Errorf("%s from shard statistics: %v, %v; want d = 6", id, fm, err)
		}
	}
	ge, err := Fit(t.Context(), "ge-hamming", md, Params{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	thr, _ := ge.Choose(Params{Thr: DefaultThr})
	if ge.Dim != thr.Dim {
		t.Errorf("ge-hamming: d = %d, want the threshold's %d", ge.Dim, thr.Dim)
	}
	// Fewer directions than d′: the rank decides, and the note says so.
	low := tuMultiDim(4, 40, 4, classes) // pca's rank is at most D = 4
	m, err := Fit(t.Context(), "pca", low, Params{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.Dim != 4 || !strings.Contains(strings.Join(m.Notes, " "), "so d = 4") {
		t.Errorf("pca on 4 features: d = %d, notes %q; want 4 and a note on the rank", m.Dim, m.Notes)
	}
}
