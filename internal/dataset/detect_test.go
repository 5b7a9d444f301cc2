package dataset_test

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"mldr/internal/dataset"
)

func TestFormatAndLineEndings(t *testing.T) {
	t.Run("CSV header starting with @", func(t *testing.T) {
		ds := mustLoad(t, "@id,b,label:y\n1,2,0\n3,4,1\n", dataset.Options{})
		if ds.Features.At(0) != "@id" {
			t.Errorf("got features %q, want @id first", ds.Features)
		}
	})
	t.Run("CR-only line endings", func(t *testing.T) {
		_, err := load("a,b,label:y\r1,2,0\r3,4,1\r", dataset.Options{})
		checkInputError(t, err, inputErr{Line: 1, Msg: "CR only"})
	})
	t.Run("MEKA -C in an unquoted relation with spaces", func(t *testing.T) {
		ds := mustLoad(t, "@relation my data: -C 1\n@attribute y {0,1}\n@attribute a numeric\n@data\n0,1\n1,2\n", dataset.Options{})
		if ds.Labels.Len() != 1 || ds.Labels.At(0) != "y" {
			t.Errorf("got labels %q, want y", ds.Labels)
		}
	})
}

func TestLabelNamedTwice(t *testing.T) {
	_, err := load("a,label:y\n1,0\n2,1\n", dataset.Options{Labels: []string{"y", "label:y"}})
	checkInputError(t, err, inputErr{Field: "labels", Msg: `names column "label:y" twice`})
}

// When every label column has two values but one is not a binary code, the
// data are read as multi-dimensional, and a warning says why.
func TestMultiDimLookalikeWarning(t *testing.T) {
	ds := mustLoad(t, "a,label:y,label:z\n1,0,1\n2,-1,0\n3,0,1\n", dataset.Options{})
	if ds.Kind != dataset.MultiDim {
		t.Fatalf("got kind %s, want multidim", ds.Kind)
	}
	if len(ds.Warnings) != 1 || !strings.Contains(ds.Warnings[0], `"label:y" holds {0, -1}`) {
		t.Errorf("got warnings %q, want one naming label:y and its values", ds.Warnings)
	}
	// Real multi-dimensional data (a variable with more than two classes)
	// get no such warning.
	ds = mustLoad(t, "a,label:y,label:z\n1,1,1\n2,2,0\n3,3,1\n", dataset.Options{})
	if ds.Kind != dataset.MultiDim || len(ds.Warnings) != 0 {
		t.Errorf("got kind %s, warnings %q", ds.Kind, ds.Warnings)
	}
}

// The matrix is sized from the first rows when the input's size is known.
// Whether the estimate is right, too low or too high, and whether the size
// is known at all, the data read are the same.
func TestSizingGivesSameData(t *testing.T) {
	row := func(i int, wide bool) string {
		if wide {
			return fmt.Sprintf("%d.000000000001,%d.5000000000001,1\n", i, -i)
		}
		return fmt.Sprintf("%d,%d.5,0\n", i, -i)
	}
	build := func(firstWide, restWide bool) string {
		var b strings.Builder
		b.WriteString("a,b,label:y\n")
		for i := range 2000 {
			b.WriteString(row(i, map[bool]bool{true: firstWide, false: restWide}[i < 300]))
		}
		return b.String()
	}
	for _, tc := range []struct {
		name            string
		first, laterRow bool
	}{
		{"uniform rows", false, false},
		{"estimate too high (long rows first)", true, false},
		{"estimate too low (short rows first)", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := build(tc.first, tc.laterRow)
			sized := mustLoad(t, text, dataset.Options{})
			unsized, err := dataset.Load(struct{ io.Reader }{strings.NewReader(text)}, dataset.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if sized.Rows() != 2000 {
				t.Fatalf("got %d rows, want 2000", sized.Rows())
			}
			if !sameBits(sized.Dense(), unsized.Dense()) || !sameBits(sized.Y, unsized.Y) {
				t.Error("the data differ with and without a known size")
			}
			if got := sized.Dense().At(1999, 1); got != -1999.5 && got != -1999.5000000000001 {
				t.Errorf("last row: got b = %v", got)
			}
		})
	}
}
