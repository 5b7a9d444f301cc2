package dataset_test

import (
	"os"
	"slices"
	"testing"

	"mldr/internal/dataset"
)

// TestLoadARFF checks dense and sparse ARFF rows, declared values and the
// ways ARFF names its labels.
func TestLoadARFF(t *testing.T) {
	ml, md := dataset.MultiLabel, dataset.MultiDim
	runCSVCases(t, []csvCase{
		{name: "dense",
			in:       "@relation r\n@attribute a numeric\n@attribute b REAL\n@attribute c integer\n@attribute label:y {0,1}\n@data\n1,2.5,3,0\n4,5,-6,1\n",
			features: []string{"a", "b", "c"}, labels: []string{"y"}, kind: ml,
			x: [][]float64{{1, 2.5, 3}, {4, 5, -6}}, y: [][]float64{{0}, {1}}},
		{name: "keywords in any case, blank lines and comments",
			in:       "% head\n\n@Relation r\n@ATTRIBUTE a NUMERIC\n% between\n@Attribute label:y {0,1}\n\n@Data\n% first row next\n1,0\n\n%\n2,1\n",
			features: []string{"a"}, labels: []string{"y"}, kind: ml,
			x: [][]float64{{1}, {2}}, y: [][]float64{{0}, {1}}},
		{name: "sparse: omitted numeric is 0, omitted nominal is the first declared value",
			// f is nominal with numeric values, declared 1 first; z is
			// declared {1,0}, so an omitted z is 1.
			in: "@relation r\n@attribute a numeric\n@attribute f {1,0}\n@attribute colour {red,green}\n" +
				"@attribute label:y {0,1}\n@attribute label:z {1,0}\n@data\n" +
				"{0 2.5}\n{1 0, 2 green, 3 1}\n{}\n{ 4 0 , 0 -1 }\n",
			opts:     dataset.Options{Nominal: dataset.NominalOneHot},
			features: []string{"a", "f", "colour=red", "colour=green"}, labels: []string{"y", "z"}, kind: ml,
			x: [][]float64{{2.5, 1, 1, 0}, {0, 0, 0, 1}, {0, 1, 1, 0}, {-1, 1, 1, 0}},
			y: [][]float64{{0, 1}, {1, 1}, {0, 1}, {0, 0}}},
		{name: "sparse row with a quoted brace",
			in:       "@relation r\n@attribute a numeric\n@attribute label:c {'x}y', z}\n@data\n{0 1, 1 'x}y'}\n{0 2,1 z}\n",
			features: []string{"a"}, labels: []string{"c"}, kind: md,
			x: [][]float64{{1}, {2}}, y: [][]float64{{0}, {1}}, categories: [][]string{{"x}y", "z"}}},
		{name: "dense and sparse rows in one file",
			in:       "@relation r\n@attribute a numeric\n@attribute b numeric\n@attribute label:y {0,1}\n@data\n1,2,0\n{1 5,2 1}\n3,0,1\n",
			features: []string{"a", "b"}, labels: []string{"y"}, kind: ml,
			x: [][]float64{{1, 2}, {0, 5}, {3, 0}}, y: [][]float64{{0}, {1}, {1}}},
		{name: "quoted names and values",
			in: "@relation 'a relation'\n@attribute 'my feature' numeric\n@attribute \"other one\" numeric\n" +
				"@attribute 'label:tall or not' {'no way', 'yes indeed'}\n@data\n1,2,'no way'\n3,4,\"yes indeed\"\n",
			features: []string{"my feature", "other one"}, labels: []string{"tall or not"}, kind: md,
			x: [][]float64{{1, 2}, {3, 4}}, y: [][]float64{{0}, {1}},
			categories: [][]string{{"no way", "yes indeed"}}},
		{name: "nominal label in declared order",
			in: "@relation r\n@attribute a numeric\n@attribute label:size {S,M,L}\n@attribute label:n {3,1,2}\n" +
				"@data\n1,L,1\n2,S,2\n3,M,3\n4,L,3\n",
			features: []string{"a"}, labels: []string{"size", "n"}, kind: md,
			x: [][]float64{{1}, {2}, {3}, {4}}, y: [][]float64{{2, 1}, {0, 2}, {1, 0}, {2, 0}},
			categories: [][]string{{"S", "M", "L"}, {"3", "1", "2"}}},
		{name: "yes/no label declared",
			in:       "@relation r\n@attribute a numeric\n@attribute label:y {YES,NO}\n@data\n1,NO\n2,YES\n",
			features: []string{"a"}, labels: []string{"y"}, kind: ml,
			x: [][]float64{{1}, {2}}, y: [][]float64{{0}, {1}}},
		{name: "missing values with mean",
			in:       "@relation r\n@attribute a numeric\n@attribute b numeric\n@attribute label:y {0,1}\n@data\n1,?,0\n?,4,1\n3,8,1\n",
			opts:     dataset.Options{Missing: dataset.MissingMean},
			features: []string{"a", "b"}, labels: []string{"y"}, kind: ml,
			x: [][]float64{{1, 6}, {2, 4}, {3, 8}}, y: [][]float64{{0}, {1}, {1}},
			warning: "2 missing feature values were replaced"},
		{name: "missing value in a sparse row, dropped",
			in:       "@relation r\n@attribute a numeric\n@attribute label:y {0,1}\n@data\n{0 1}\n{0 ?}\n{0 2,1 1}\n",
			opts:     dataset.Options{Missing: dataset.MissingDropRows},
			features: []string{"a"}, labels: []string{"y"}, kind: ml,
			x: [][]float64{{1}, {2}}, y: [][]float64{{0}, {1}},
			warning: "1 rows with missing values were left out (the first on line 6)"},
		{name: "string attribute dropped",
			in:       "@relation r\n@attribute name string\n@attribute a numeric\n@attribute label:y {0,1}\n@data\n'x y',1,0\nz,2,1\n",
			opts:     dataset.Options{Nominal: dataset.NominalDrop},
			features: []string{"a"}, labels: []string{"y"}, kind: ml,
			x: [][]float64{{1}, {2}}, y: [][]float64{{0}, {1}},
			warning: `1 text columns were left out (nominal=drop): "name".`},
		{name: "MEKA -C 3",
			in: "@relation 'yeast: -C 3'\n@attribute p {0,1}\n@attribute q {0,1}\n@attribute r {0,1}\n@attribute a numeric\n" +
				"@data\n0,1,1,0.5\n1,0,1,1.5\n",
			features: []string{"a"}, labels: []string{"p", "q", "r"}, kind: ml,
			x: [][]float64{{0.5}, {1.5}}, y: [][]float64{{0, 1, 1}, {1, 0, 1}},
			warning: `Labels were taken from MEKA's "-C 3" in @relation (the first 3 attributes); check that these are the label columns.`},
		{name: "MEKA -C -2",
			in: "@relation 'music: -C -2 -split-percentage 67'\n@attribute a numeric\n@attribute b numeric\n@attribute p {0,1}\n@attribute q {0,1}\n" +
				"@data\n1,2,0,1\n3,4,1,1\n",
			features: []string{"a", "b"}, labels: []string{"p", "q"}, kind: ml,
			x: [][]float64{{1, 2}, {3, 4}}, y: [][]float64{{0, 1}, {1, 1}},
			warning: `Labels were taken from MEKA's "-C -2" in @relation (the last 2 attributes); check that these are the label columns.`},
		{name: "label prefix wins over MEKA",
			in:       "@relation 'x: -C 1'\n@attribute p {0,1}\n@attribute label:q {0,1}\n@data\n0,1\n1,0\n",
			features: []string{"p"}, labels: []string{"q"}, kind: ml,
			x: [][]float64{{0}, {1}}, y: [][]float64{{1}, {0}}},
		{name: "xml labels",
			in:       "@relation r\n@attribute a numeric\n@attribute p {0,1}\n@attribute q {0,1}\n@data\n1,0,1\n2,1,0\n",
			opts:     dataset.Options{LabelXML: []string{"q", "p"}},
			features: []string{"a"}, labels: []string{"p", "q"}, kind: ml,
			x: [][]float64{{1}, {2}}, y: [][]float64{{0, 1}, {1, 0}}},
		{name: "format forced",
			in:       "@relation r\n@attribute a numeric\n@attribute label:y {0,1}\n@data\n1,0\n2,1\n",
			opts:     dataset.Options{Format: dataset.FormatARFF},
			features: []string{"a"}, labels: []string{"y"}, kind: ml,
			x: [][]float64{{1}, {2}}, y: [][]float64{{0}, {1}}},
	})

	t.Run("MEKA warning only when MEKA chose", func(t *testing.T) {
		ds := mustLoad(t, "@relation 'x: -C 1'\n@attribute p {0,1}\n@attribute label:q {0,1}\n@data\n0,1\n1,0\n", dataset.Options{})
		if len(ds.Warnings) != 0 {
			t.Errorf("Warnings: got %q, want none", ds.Warnings)
		}
	})
}

// TestLoadARFFFixture reads testdata/mixed.arff: comments, quoted names,
// dense and sparse rows, a '?' and a nominal feature.
func TestLoadARFFFixture(t *testing.T) {
	read := func(t *testing.T, opts dataset.Options) (*dataset.Dataset, error) {
		t.Helper()
		f, err := os.Open("testdata/mixed.arff")
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		return dataset.Load(f, opts)
	}
	t.Run("mean and one-hot", func(t *testing.T) {
		ds, err := read(t, dataset.Options{Missing: dataset.MissingMean, Nominal: dataset.NominalOneHot})
		if err != nil {
			t.Fatalf("Load: got %q, want no error", err)
		}
		checkStrings(t, "Features", ds.Features.Strings(), []string{"my feature", "other one", "count", "shape=round", "shape=flat top"})
		checkStrings(t, "Labels", ds.Labels.Strings(), []string{"red", "big"})
		// "other one" is 2, ?, 0, 8, 0: the mean of the four values is 2.5.
		checkMatrix(t, "X", ds.X, [][]float64{
			{1.5, 2, 3, 1, 0},
			{-2, 2.5, 4, 0, 1},
			{7, 0, 0, 0, 1},
			{0, 8, 0, 1, 0},
			{0, 0, 0, 1, 0},
		})
		checkMatrix(t, "Y", ds.Y, [][]float64{{1, 0}, {0, 1}, {0, 1}, {1, 0}, {0, 0}})
	})
	t.Run("defaults refuse the nominal feature", func(t *testing.T) {
		_, err := read(t, dataset.Options{})
		checkInputError(t, err, inputErr{Line: 8, Column: "shape",
			Msg: "a nominal attribute with text values {round, flat top} cannot be a feature"})
	})
	t.Run("the missing value is on line 16", func(t *testing.T) {
		_, err := read(t, dataset.Options{Nominal: dataset.NominalDrop})
		checkInputError(t, err, inputErr{Line: 16, Column: "other one", Msg: `missing value ("?")`})
	})
}

// TestLoadARFFRefuses checks refusals specific to ARFF.
func TestLoadARFFRefuses(t *testing.T) {
	const head = "@relation r\n@attribute a numeric\n@attribute label:y {0,1}\n@data\n" // data from line 5
	tests := []refusal{
		{"value not declared", head + "1,0\n2,2\n", dataset.Options{},
			inputErr{Line: 6, Column: "label:y", Msg: `"2" is not one of the declared values {0, 1}`}},
		{"nominal value not declared", "@relation r\n@attribute c {red,green}\n@attribute label:y {0,1}\n@data\nred,0\n% x\nblue,1\n",
			dataset.Options{Nominal: dataset.NominalOneHot},
			inputErr{Line: 7, Column: "c", Msg: `"blue" is not one of the declared values {red, green}`}},
		{"numeric nominal value not declared", "@relation r\n@attribute f {1,2}\n@attribute label:y {0,1}\n@data\n1,0\n3,1\n", dataset.Options{},
			inputErr{Line: 6, Column: "f", Msg: `"3" is not one of the declared values {1, 2}`}},
		{"missing value by default", head + "1,0\n?,1\n", dataset.Options{},
			inputErr{Line: 6, Column: "a", Msg: `missing value ("?")`}},
		{"no @data", "@relation r\n@attribute a numeric\n@attribute label:y {0,1}\n\n% end\n", dataset.Options{},
			inputErr{Line: 5, Msg: "the ARFF header has no @data line"}},
		{"no @attribute", "@relation r\n@data\n1,0\n", dataset.Options{},
			inputErr{Line: 2, Msg: "the ARFF header declares no @attribute"}},
		{"comments only", "% nothing here\n%\n", dataset.Options{},
			inputErr{Msg: "the file is empty"}},
		{"no data rows", head + "% none\n", dataset.Options{},
			inputErr{Line: 2, Msg: "header but no data rows"}},
		{"unknown attribute type", "@relation r\n\n@attribute a numeric\n@attribute b float\n@attribute label:y {0,1}\n@data\n", dataset.Options{},
			inputErr{Line: 4, Column: "b", Msg: `unknown attribute type "float"`}},
		{"attribute without type", "@relation r\n@attribute a\n@data\n", dataset.Options{},
			inputErr{Line: 2, Column: "a", Msg: "the attribute has no type"}},
		{"attribute without name", "@relation r\n@attribute\n@data\n", dataset.Options{},
			inputErr{Line: 2, Msg: "an @attribute line needs a name and a type"}},
		{"relational attribute", "@relation r\n@attribute bag relational\n@data\n", dataset.Options{},
			inputErr{Line: 2, Column: "bag", Msg: "relational attributes are not supported"}},
		{"nominal list not closed", "@relation r\n@attribute c {a,b\n@data\n", dataset.Options{},
			inputErr{Line: 2, Column: "c", Msg: "not closed with '}'"}},
		{"unexpected header line", "@relation r\n@attribute a numeric\nhello there\n@data\n", dataset.Options{},
			inputErr{Line: 3, Msg: `unexpected "hello there" in the ARFF header`}},
		{"string feature by default", "@relation r\n@attribute s string\n@attribute label:y {0,1}\n@data\nx,0\n", dataset.Options{},
			inputErr{Line: 2, Column: "s", Msg: "a text attribute cannot be a feature"}},
		{"string label", "@relation r\n@attribute a numeric\n@attribute label:s string\n@data\n1,x\n", dataset.Options{},
			inputErr{Line: 3, Column: "label:s", Msg: "a string or date attribute cannot be a label"}},
		{"sparse index out of range", head + "{0 1}\n{0 1, 2 1}\n", dataset.Options{},
			inputErr{Line: 6, Msg: `"2" is not an attribute index (0 to 1) in a sparse row`}},
		{"sparse index not a number", head + "{a 1}\n", dataset.Options{},
			inputErr{Line: 5, Msg: `"a" is not an attribute index`}},
		{"negative sparse index", head + "{-1 1}\n", dataset.Options{},
			inputErr{Line: 5, Msg: `"-1" is not an attribute index`}},
		{"repeated sparse index", head + "{0 1}\n{1 1, 0 2, 1 0}\n", dataset.Options{},
			inputErr{Line: 6, Column: "label:y", Msg: "attribute index 1 appears twice in a sparse row"}},
		{"sparse row not closed", head + "{0 1, 1 1\n", dataset.Options{},
			inputErr{Line: 5, Msg: "a sparse row is not closed with '}'"}},
		{"sparse row with a weight", head + "{0 1, 1 1}, {3}\n", dataset.Options{},
			inputErr{Line: 5, Msg: "instance weights are not supported"}},
		{"sparse entries without comma", head + "{0 1 1 1}\n", dataset.Options{},
			inputErr{Line: 5, Column: "a", Msg: "expected ',' between the entries of a sparse row"}},
		{"dense row too short", head + "1,0\n2\n", dataset.Options{},
			inputErr{Line: 6, Msg: "expected 2 fields (as in the header), found 1"}},
		{"quoted value not closed", head + "1,0\n'2,1\n", dataset.Options{},
			inputErr{Line: 6, Msg: "a quoted value is not closed"}},
		{"no labels", "@relation r\n@attribute a numeric\n@attribute b {0,1}\n@data\n1,0\n2,1\n", dataset.Options{},
			inputErr{Field: "labels", Msg: "no label column found"}},
		{"MEKA count too large", "@relation 'r: -C 2'\n@attribute a numeric\n@attribute b {0,1}\n@data\n1,0\n2,1\n", dataset.Options{},
			inputErr{Field: "labels", Msg: "no label column found"}},
		{"xml names a missing attribute", head + "1,0\n2,1\n", dataset.Options{LabelXML: []string{"y", "z"}},
			inputErr{Field: "xml", Msg: `xml names column "z", which the file does not have`}},
	}
	checkRefusals(t, tests)
}

// TestLoadARFFDeclaredCategoriesOnly checks that a class variable lists only
// the declared values that occur, in declared order.
func TestLoadARFFDeclaredCategoriesOnly(t *testing.T) {
	ds := mustLoad(t, "@relation r\n@attribute a numeric\n@attribute label:c {z,y,x,w}\n@data\n1,x\n2,z\n3,x\n", dataset.Options{})
	want := [][]string{{"z", "x"}}
	if !slices.EqualFunc(ds.Categories, want, slices.Equal) {
		t.Errorf("Categories: got %q, want %q", ds.Categories, want)
	}
	checkMatrix(t, "Y", ds.Y, [][]float64{{1}, {0}, {1}})
}
