package dataset_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mldr/internal/dataset"
)

func TestParseFolds(t *testing.T) {
	good := "fold,split,row\n1,train,1\n1,train,2\n1,test,3\n2,test,1\n2,train,3\n2,train,2\n"
	folds, err := dataset.ParseFolds(strings.NewReader(good), 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(folds) != 2 || len(folds[0].Train) != 2 || folds[0].Test[0] != 2 || folds[1].Test[0] != 0 || folds[1].Train[0] != 1 {
		t.Errorf("got %+v", folds)
	}
	for _, tc := range []struct {
		name, in string
		want     inputErr
	}{
		{"no header", "1,train,1\n", inputErr{Line: 1, Field: "folds", Msg: "header"}},
		{"bad fold", "fold,split,row\nx,train,1\n", inputErr{Line: 2, Column: "fold", Field: "folds", Msg: "fold number"}},
		{"bad part", "fold,split,row\n1,valid,1\n", inputErr{Line: 2, Column: "split", Field: "folds", Msg: "train or test"}},
		{"row out of range", "fold,split,row\n1,train,4\n", inputErr{Line: 2, Column: "row", Field: "folds", Msg: "from 1 to 3"}},
		{"row in both parts", "fold,split,row\n1,train,1\n1,test,1\n", inputErr{Line: 3, Column: "row", Field: "folds", Msg: "already in the train part"}},
		{"fold without test", "fold,split,row\n1,train,1\n", inputErr{Field: "folds", Msg: "needs both"}},
		{"empty", "fold,split,row\n", inputErr{Field: "folds", Msg: "no fold"}},
		{"ragged", "fold,split,row\n1,train\n", inputErr{Line: 2, Field: "folds", Msg: "expected 3 fields"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := dataset.ParseFolds(strings.NewReader(tc.in), 3)
			checkInputError(t, err, tc.want)
		})
	}
}

// The MDC benchmark folds: 10 folds whose test parts partition the rows.
func TestParseSharedFolds(t *testing.T) {
	skipWithoutDatasets(t)
	for _, c := range []struct {
		name string
		rows int
	}{{"edm", 154}, {"jura", 359}, {"enb", 768}, {"song", 785}} {
		f, err := os.Open(filepath.Join(datasetsDir, c.name, c.name+"-folds.csv"))
		if err != nil {
			t.Fatal(err)
		}
		folds, err := dataset.ParseFolds(f, c.rows)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(folds) != 10 {
			t.Fatalf("%s: got %d folds, want 10", c.name, len(folds))
		}
		seen := make([]int, c.rows)
		for _, fd := range folds {
			if len(fd.Train)+len(fd.Test) != c.rows {
				t.Errorf("%s: a fold covers %d rows, want %d", c.name, len(fd.Train)+len(fd.Test), c.rows)
			}
			for _, r := range fd.Test {
				seen[r]++
			}
		}
		for r, n := range seen {
			if n != 1 {
				t.Fatalf("%s: row %d is in %d test parts, want 1", c.name, r+1, n)
			}
		}
	}
}

func FuzzParseFolds(f *testing.F) {
	f.Add("fold,split,row\n1,train,1\n1,test,2\n", 3)
	f.Add("fold,split,row\n2,test,1\n2,train,3\n1,test,2\n1,train,1\n", 3)
	f.Add("\ufefffold,split,row\n1,test,1\n", 1)
	f.Fuzz(func(t *testing.T, in string, rows int) {
		rows = rows%1000 + 1
		if rows < 1 {
			rows = -rows + 1
		}
		folds, err := dataset.ParseFolds(strings.NewReader(in), rows)
		if err != nil {
			return
		}
		for _, fd := range folds {
			if len(fd.Train) == 0 || len(fd.Test) == 0 {
				t.Fatal("a fold without a part")
			}
			for _, r := range append(fd.Train, fd.Test...) {
				if r < 0 || r >= rows {
					t.Fatalf("row %d out of range", r)
				}
			}
		}
	})
}
