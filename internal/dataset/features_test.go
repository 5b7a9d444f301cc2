package dataset_test

import (
	"strings"
	"testing"

	"mldr/internal/dataset"
)

func TestLoadFeatures(t *testing.T) {
	// Columns in another order, a label column and an extra one: the result
	// has the model's columns in the model's order.
	in := "b,label:y,a,extra\n2,1,1,x\n4,0,3,y\n"
	x, err := dataset.LoadFeatures(strings.NewReader(in), []string{"a", "b"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkMatrix(t, "X", x, [][]float64{{1, 2}, {3, 4}})
	// One row is enough.
	x, err = dataset.LoadFeatures(strings.NewReader("a,b\n5,6\n"), []string{"b", "a"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkMatrix(t, "X", x, [][]float64{{6, 5}})
	_, err = dataset.LoadFeatures(strings.NewReader("a,c\n1,2\n"), []string{"a", "b"}, nil)
	checkInputError(t, err, inputErr{Line: 1, Field: "file", Msg: `lacks 1 of the model's feature columns: "b"`})
	_, err = dataset.LoadFeatures(strings.NewReader("a,b\n1,2\n3,oops\n"), []string{"a", "b"}, nil)
	checkInputError(t, err, inputErr{Line: 3, Column: "b", Msg: "not a number"})
}
