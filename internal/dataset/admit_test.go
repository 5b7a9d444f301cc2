package dataset_test

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"mldr/internal/dataset"
)

// admissions records what a loading tells its admission, and refuses
// beyond limit (≤ 0: never).
type admissions struct {
	limit int64
	seen  []int64
	rows  []int64
}

var errRefused = errors.New("refused by the admission")

func (a *admissions) admit(bytes, rows int64) error {
	a.seen = append(a.seen, bytes)
	a.rows = append(a.rows, rows)
	if a.limit > 0 && bytes > a.limit {
		return errRefused
	}
	return nil
}

func (a *admissions) largest() int64 {
	var m int64
	for _, b := range a.seen {
		m = max(m, b)
	}
	return m
}

// loadFromFile loads text from a file on disk (so the loader knows its
// size, as an upload's declared length tells it) with opts.
func loadFromFile(t *testing.T, text string, opts dataset.Options) (*dataset.Dataset, error) {
	t.Helper()
	path := t.TempDir() + "/in"
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return dataset.Load(f, opts)
}

// TestLoadAdmitsMemory checks what the loader tells its admission: an
// estimate of what the data set will hold, from the first MiB of the
// input on, close to what it then holds (dense and sparse CSV, ARFF,
// libsvm); a refusal ends the loading with the admission's error, before
// the matrices are reserved; and a file whose rows each cost far more
// than they hold (a sparse ARFF row over a million declared labels) is
// refused within its first rows.
func TestLoadAdmitsMemory(t *testing.T) {
	var svm strings.Builder
	for i := range 40000 {
		fmt.Fprintf(&svm, "%d,%d %d:0.5 %d:1.25 %d:2\n", i%50, 50+(i*7)%50, 1+i%300, 301+i%300, 601+i%300)
	}
	for _, tc := range []struct {
		name string
		text string
		held func(ds *dataset.Dataset) int64
	}{
		{"dense CSV", streamCSV(30000, 40, false, nil), func(ds *dataset.Dataset) int64 { return 8 * int64(ds.Rows()) * 42 }},
		{"sparse CSV", streamCSV(20000, 400, true, nil), func(ds *dataset.Dataset) int64 {
			return ds.Sparse.Bytes() + 8*int64(ds.Rows())*2
		}},
		{"dense ARFF", streamARFF(20000, 30), func(ds *dataset.Dataset) int64 { return 8 * int64(ds.Rows()) * 32 }},
		{"libsvm", svm.String(), func(ds *dataset.Dataset) int64 { return ds.Sparse.Bytes() + ds.YSparse.Bytes() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := dataset.Options{}
			if strings.HasPrefix(tc.name, "dense ARFF") {
				opts.Labels = []string{"a", "b"}
			}
			a := &admissions{}
			ds, err := loadFromFile(t, tc.text, opts.WithMemory(a.admit))
			if err != nil {
				t.Fatal(err)
			}
			if len(a.seen) < 2 {
				t.Fatalf("the admission was told %d times, want at least twice (the sizing, then every MiB)", len(a.seen))
			}
			held := tc.held(ds)
			// Once it has read a MiB of rows (or sized its matrices
			// from its first rows), what it tells is close to what the
			// data set holds in the end (beyond the loading's fixed
			// 8 MiB), and so is the number of rows.
			k := 0
			for k < len(a.rows) && a.rows[k] < int64(ds.Rows())/2 {
				k++
			}
			if k == len(a.rows) {
				t.Fatalf("no estimate of the rows came near %d: %v", ds.Rows(), a.rows)
			}
			if got := a.seen[k] - 8<<20; got < held*8/10 || got > held*3 {
				t.Errorf("estimate %d bytes for %d rows, want about the %d the data set holds", got, a.rows[k], held)
			}
			if got := a.largest() - 8<<20; got > held*3 {
				t.Errorf("largest estimate %d bytes, want at most 3 × the %d the data set holds", got, held)
			}
			if r := a.rows[k]; r > int64(ds.Rows())*12/10 {
				t.Errorf("estimate of the rows %d, want about %d", r, ds.Rows())
			}
			// Refused at half of it: the loading stops with the refusal.
			no := &admissions{limit: held / 2}
			if _, err := loadFromFile(t, tc.text, opts.WithMemory(no.admit)); !errors.Is(err, errRefused) {
				t.Errorf("refused at half: got %v, want the admission's error", err)
			}
		})
	}
	t.Run("sparse ARFF over 200 000 declared labels", func(t *testing.T) {
		var b strings.Builder
		b.WriteString("@relation 'wide: -C 200000'\n")
		for j := range 200_000 {
			fmt.Fprintf(&b, "@attribute l%d {0,1}\n", j)
		}
		b.WriteString("@attribute f numeric\n@data\n")
		for i := range 3000 {
			fmt.Fprintf(&b, "{%d 1,200000 %d}\n", i, i)
		}
		a := &admissions{limit: 64 << 20}
		_, err := loadFromFile(t, b.String(), dataset.Options{}.WithMemory(a.admit))
		if !errors.Is(err, errRefused) {
			t.Fatalf("got %v, want refused (each row holds 200 000 label codes, 1.6 MB)", err)
		}
		// Refused within its first rows, told at every doubling of
		// what it holds: the estimate for the whole file (its 3 000
		// rows' 4.8 GB of label codes) is known from the second row.
		if len(a.seen) > 4 || a.largest() < 4<<30 {
			t.Errorf("refused after %d estimates (%v), want within 4, the last above 4 GiB", len(a.seen), a.seen)
		}
	})
}
