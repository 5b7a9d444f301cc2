package dataset_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"mldr/internal/dataset"
)

// arffPair writes the same rows as an ARFF file twice: every row written
// out in full, and the same rows as sparse rows ("{index value, …}", the
// indices in a shuffled order, every cell equal to its column's default
// left out, some rows still written in full). The columns: numeric
// features (often 0, sometimes -0 or missing), a numeric-nominal feature
// whose first declared value is 3, a text feature, and labels, binary or
// (multiDim) of three classes.
func arffPair(seed uint64, rows int, multiDim, missing bool) (full, sparse string) {
	rng := rand.New(rand.NewPCG(seed, 7))
	var h strings.Builder
	h.WriteString("@relation pair\n")
	const numeric = 12
	for j := range numeric {
		fmt.Fprintf(&h, "@attribute f%d numeric\n", j)
	}
	h.WriteString("@attribute lvl {3,5,8}\n@attribute colour {red,green,blue}\n")
	labels := []string{"{0,1}", "{0,1}", "{0,1}"}
	if multiDim {
		labels = []string{"{a,b,c}", "{x,y,z}"}
	}
	for j, l := range labels {
		fmt.Fprintf(&h, "@attribute label:y%d %s\n", j, l)
	}
	h.WriteString("@data\n")
	ncols := numeric + 2 + len(labels)
	defaults := make([]string, ncols)
	for j := range numeric {
		defaults[j] = "0"
	}
	defaults[numeric], defaults[numeric+1] = "3", "red"
	for j, l := range labels {
		defaults[numeric+2+j] = strings.Split(strings.Trim(l, "{}"), ",")[0]
	}
	var f, s strings.Builder
	f.WriteString(h.String())
	s.WriteString(h.String())
	cell := make([]string, ncols)
	for i := range rows {
		for j := range numeric {
			switch r := rng.IntN(20); {
			case r < 12:
				cell[j] = "0"
			case r == 12:
				cell[j] = "-0"
			case r == 13 && missing && i%5 == 1:
				cell[j] = "?"
			default:
				cell[j] = fmt.Sprintf("%.3g", rng.NormFloat64())
			}
		}
		cell[numeric] = []string{"3", "5", "8"}[rng.IntN(3)]
		cell[numeric+1] = []string{"red", "green", "blue"}[rng.IntN(3)]
		for j, l := range labels {
			vals := strings.Split(strings.Trim(l, "{}"), ",")
			cell[numeric+2+j] = vals[rng.IntN(len(vals))]
		}
		f.WriteString(strings.Join(cell, ",") + "\n")
		if i%7 == 3 {
			s.WriteString(strings.Join(cell, ",") + "\n") // a row in full among sparse ones
			continue
		}
		var given []string
		for j := range ncols {
			if cell[j] != defaults[j] {
				given = append(given, fmt.Sprintf("%d %s", j, cell[j]))
			}
		}
		rng.Shuffle(len(given), func(a, b int) { given[a], given[b] = given[b], given[a] })
		s.WriteString("{" + strings.Join(given, ", ") + "}\n")
	}
	return f.String(), s.String()
}

// TestSparseRowsMatchFullRows: sparse ARFF rows, read at the cost of the
// cells they give, make bit for bit the data set the same rows written in
// full make, with the same warnings: multi-label and multi-dimensional,
// features held dense or sparse, text features encoded or left out, and
// missing values refused, dropped or replaced by the mean.
func TestSparseRowsMatchFullRows(t *testing.T) {
	for _, tc := range []struct {
		name     string
		multiDim bool
		missing  bool
		opts     dataset.Options
		rows     int
	}{
		{"multi-label, text dropped", false, false, dataset.Options{Nominal: dataset.NominalDrop}, 400},
		{"multi-label, text one-hot", false, false, dataset.Options{Nominal: dataset.NominalOneHot}, 400},
		{"multi-dimensional", true, false, dataset.Options{Nominal: dataset.NominalDrop}, 300},
		{"missing values dropped", false, true, dataset.Options{Nominal: dataset.NominalDrop, Missing: dataset.MissingDropRows}, 500},
		{"missing values imputed", false, true, dataset.Options{Nominal: dataset.NominalDrop, Missing: dataset.MissingMean}, 500},
		{"few rows", false, false, dataset.Options{Nominal: dataset.NominalDrop}, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			full, sparse := arffPair(uint64(len(tc.name)), tc.rows, tc.multiDim, tc.missing)
			want := mustLoad(t, full, tc.opts)
			got := mustLoad(t, sparse, tc.opts)
			sameStored(t, got, want)
			sameLabels(t, "labels", got, want)
			checkStrings(t, "Warnings", got.Warnings, want.Warnings)
		})
	}
	t.Run("a mean of -0 and the zeros left out", func(t *testing.T) {
		// Dense, the mean sums -0 + 0 + -0 = +0; the sparse rows leave the
		// 0 out, and the mean must still be +0, bit for bit.
		head := "@relation z\n@attribute a numeric\n@attribute label:y {0,1}\n@data\n"
		opts := dataset.Options{Missing: dataset.MissingMean}
		want := mustLoad(t, head+"-0,0\n?,1\n0,1\n-0,0\n", opts)
		got := mustLoad(t, head+"{0 -0}\n{0 ?,1 1}\n{1 1}\n{0 -0}\n", opts)
		sameStored(t, got, want)
	})
	t.Run("missing values refused", func(t *testing.T) {
		full, sparse := arffPair(3, 200, false, true)
		_, errFull := load(full, dataset.Options{Nominal: dataset.NominalDrop})
		_, errSparse := load(sparse, dataset.Options{Nominal: dataset.NominalDrop})
		if errFull == nil || errSparse == nil || !strings.Contains(errSparse.Error(), "missing value") {
			t.Fatalf("got %v and %v, want both refused for a missing value", errFull, errSparse)
		}
	})
	t.Run("a sparse matrix of wide rows", func(t *testing.T) {
		// 20 000 numeric features, a label, 300 rows of two entries: held
		// sparse from the first row.
		var b strings.Builder
		b.WriteString("@relation wide\n@attribute label:y {0,1}\n")
		for j := range 20000 {
			fmt.Fprintf(&b, "@attribute f%d numeric\n", j)
		}
		b.WriteString("@data\n")
		var dense strings.Builder
		dense.WriteString(b.String())
		row := make([]string, 20001)
		for i := range 300 {
			fmt.Fprintf(&b, "{0 %d,%d 1.5}\n", i%2, 1+(i*37)%20000)
			for j := range row {
				row[j] = "0"
			}
			row[0], row[1+(i*37)%20000] = fmt.Sprint(i%2), "1.5"
			dense.WriteString(strings.Join(row, ",") + "\n")
		}
		got := mustLoad(t, b.String(), dataset.Options{})
		if !got.IsSparse() {
			t.Fatal("got dense features, want sparse")
		}
		sameStored(t, got, mustLoad(t, dense.String(), dataset.Options{}))
	})
}
