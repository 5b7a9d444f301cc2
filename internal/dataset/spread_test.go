package dataset_test

import (
	"cmp"
	"math"
	"strconv"
	"strings"
	"testing"

	"mldr/internal/dataset"
)

// TestSpread: the widest and narrowest non-zero column standard
// deviations of hand-made data sets, dense and sparse, their ratio, and
// whether it calls for standardizing; a constant column is left out. The
// standard deviations are by hand (population): column a is 0, 1000,
// 2000, 3000 (1118.034), b is 0, 1, 0, 1 (0.5), c is 7 throughout.
func TestSpread(t *testing.T) {
	tests := []struct {
		name, csv       string
		widest, narrow  string
		ratio           float64
		dwarfs, missing bool
	}{
		{"dwarfs", "a,b,c,label:y\n0,0,7,1\n1000,1,7,0\n2000,0,7,1\n3000,1,7,0\n", "a", "b", 1118.033988749895 / 0.5, true, false},
		{"comparable", "a,b,label:y\n0,0,1\n10,1,0\n20,0,1\n30,1,0\n", "a", "b", 11.180339887498949 / 0.5, false, false},
		{"one varies", "a,c,label:y\n0,7,1\n1,7,0\n", "", "", 0, false, true},
	}
	for _, tc := range tests {
		for _, storage := range []dataset.Storage{dataset.StorageDense, dataset.StorageSparse} {
			t.Run(tc.name+"/"+string(storage), func(t *testing.T) {
				d, err := dataset.LoadStored(strings.NewReader(tc.csv), dataset.Options{}, storage)
				if err != nil {
					t.Fatal(err)
				}
				s := dataset.Summarize(d).Spread
				if tc.missing {
					if s != nil {
						t.Fatalf("got %+v, want none (fewer than two columns vary)", s)
					}
					return
				}
				if s == nil {
					t.Fatal("got no spread")
				}
				if s.Widest != tc.widest || s.Narrowest != tc.narrow {
					t.Errorf("got widest %q and narrowest %q, want %q and %q", s.Widest, s.Narrowest, tc.widest, tc.narrow)
				}
				if math.Abs(s.Ratio-tc.ratio) > 1e-9*tc.ratio {
					t.Errorf("got ratio %v, want %v", s.Ratio, tc.ratio)
				}
				if s.Dwarfs() != tc.dwarfs {
					t.Errorf("Dwarfs: got %v, want %v", s.Dwarfs(), tc.dwarfs)
				}
			})
		}
	}
}

// TestSpreadManyColumns: a sparse data set with far more columns than
// entries keeps sums for the columns that hold one only, and finds what
// the dense one does (x1 is 0, 0, 3, 3: 1.5; x2999 is 0, 0, 0, 4000:
// 1732.05…).
func TestSpreadManyColumns(t *testing.T) {
	const cols = 3000
	var b strings.Builder
	for j := range cols {
		b.WriteString("x" + strconv.Itoa(j) + ",")
	}
	b.WriteString("label:y\n")
	for i, cells := range []map[int]string{{}, {}, {1: "3"}, {1: "3", cols - 1: "4000"}} {
		for j := range cols {
			b.WriteString(cmp.Or(cells[j], "0") + ",")
		}
		b.WriteString(strconv.Itoa(i%2) + "\n")
	}
	var got []dataset.Spread
	for _, storage := range []dataset.Storage{dataset.StorageDense, dataset.StorageSparse} {
		d, err := dataset.LoadStored(strings.NewReader(b.String()), dataset.Options{}, storage)
		if err != nil {
			t.Fatal(err)
		}
		s := dataset.Summarize(d).Spread
		if s == nil {
			t.Fatalf("%s: got no spread", storage)
		}
		got = append(got, *s)
	}
	want := dataset.Spread{Widest: "x2999", WidestStd: math.Sqrt(3) * 1000, Narrowest: "x1", NarrowestStd: 1.5, Ratio: math.Sqrt(3) * 1000 / 1.5}
	for k, s := range got {
		if s.Widest != want.Widest || s.Narrowest != want.Narrowest || math.Abs(s.Ratio-want.Ratio) > 1e-9*want.Ratio {
			t.Errorf("storage %d: got %+v, want %+v", k, s, want)
		}
	}
}
