package dataset_test

import (
	"errors"
	"fmt"
	"strings"

	"mldr/internal/dataset"
)

func ExampleLoad() {
	const data = `sepal,petal,label:red,label:round
5.1,1.4,1,0
4.9,1.3,0,1
6.3,4.7,1,1
`
	ds, err := dataset.Load(strings.NewReader(data), dataset.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("rows:", ds.Rows())
	fmt.Println("features:", ds.Features)
	fmt.Println("labels:", ds.Labels)
	fmt.Println("kind:", ds.Kind)
	// Output:
	// rows: 3
	// features: [sepal petal]
	// labels: [red round]
	// kind: multilabel
}

// Refused input gives an *InputError naming the line and column.
func ExampleLoad_inputError() {
	const data = "a,b,label:y\n1,2,0\n3,abc,1\n"
	_, err := dataset.Load(strings.NewReader(data), dataset.Options{})
	var ie *dataset.InputError
	if errors.As(err, &ie) {
		what, _, _ := strings.Cut(ie.Msg, ";") // the rest says what to do
		fmt.Printf("line %d, column %q: %s\n", ie.Line, ie.Column, what)
	}
	// Output:
	// line 3, column "b": "abc" is not a number
}

// Class variables with more than two values make a multi-dimensional data
// set; numeric categories are ordered by value.
func ExampleLoad_multiDim() {
	const data = "x;label:grade;label:size\n0.5;10;M\n1.5;2;S\n2.5;1;L\n"
	ds, err := dataset.Load(strings.NewReader(data), dataset.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("kind:", ds.Kind)
	fmt.Println("categories:", ds.Categories)
	fmt.Println("first row of Y:", ds.Y.RawRowView(0))
	// Output:
	// kind: multidim
	// categories: [[1 2 10] [L M S]]
	// first row of Y: [2 1]
}

func ExampleParseLabelXML() {
	const xml = `<?xml version="1.0" encoding="utf-8"?>
<labels xmlns="http://mulan.sourceforge.net/labels">
<label name="amazed-suprised"></label>
<label name="happy-pleased"></label>
</labels>`
	names, err := dataset.ParseLabelXML(strings.NewReader(xml))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(names)
	// Output:
	// [amazed-suprised happy-pleased]
}

func ExampleDescribe() {
	const data = "a,label:p,label:q\n1,1,0\n2,1,1\n3,0,0\n4,1,0\n"
	ds, err := dataset.Load(strings.NewReader(data), dataset.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	s, det := dataset.Describe(ds)
	fmt.Printf("cardinality %.2f, density %.3f, %d distinct label sets\n", *s.LabelCardinality, *s.LabelDensity, s.DistinctLabelsets)
	for j := range det.LabelCount() {
		l := det.Stat(j)
		fmt.Printf("%s: %d rows (%.2f)\n", l.Name, l.Count, l.Frequency)
	}
	// Output:
	// cardinality 1.00, density 0.500, 3 distinct label sets
	// p: 3 rows (0.75)
	// q: 1 rows (0.25)
}
