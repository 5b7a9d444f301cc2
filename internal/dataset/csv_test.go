package dataset_test

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"mldr/internal/dataset"
)

// csvCase is a CSV input and the data set it must load to.
type csvCase struct {
	name       string
	in         string
	opts       dataset.Options
	features   []string
	labels     []string
	kind       dataset.Kind
	x, y       [][]float64
	categories [][]string // MultiDim only
	warning    string     // a phrase one warning must contain, if not ""
}

func runCSVCases(t *testing.T, tests []csvCase) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ds := mustLoad(t, tc.in, tc.opts)
			checkStrings(t, "Features", ds.Features.Strings(), tc.features)
			checkStrings(t, "Labels", ds.Labels.Strings(), tc.labels)
			if ds.Kind != tc.kind {
				t.Errorf("Kind: got %q, want %q", ds.Kind, tc.kind)
			}
			checkMatrix(t, "X", ds.X, tc.x)
			checkMatrix(t, "Y", ds.Y, tc.y)
			if !slices.EqualFunc(ds.Categories, tc.categories, slices.Equal) {
				t.Errorf("Categories: got %q, want %q", ds.Categories, tc.categories)
			}
			if tc.warning != "" {
				checkWarning(t, ds, tc.warning)
			}
		})
	}
}

// TestLoadCSVDialects checks the CSV dialects the loader accepts.
func TestLoadCSVDialects(t *testing.T) {
	ml := dataset.MultiLabel
	ab := []string{"a", "b"}
	y := []string{"y"}
	x12 := [][]float64{{1, 2}, {3, 4}}
	y01 := [][]float64{{0}, {1}}
	runCSVCases(t, []csvCase{
		{name: "comma", in: "a,b,label:y\n1,2,0\n3,4,1\n",
			features: ab, labels: y, kind: ml, x: x12, y: y01},
		{name: "semicolon", in: "a;b;label:y\n1;2;0\n3;4;1\n",
			features: ab, labels: y, kind: ml, x: x12, y: y01},
		{name: "tab", in: "a\tb\tlabel:y\n1\t2\t0\n3\t4\t1\n",
			features: ab, labels: y, kind: ml, x: x12, y: y01},
		{name: "semicolon beats commas inside quotes", in: "\"a,1\";\"b,2\";label:y\n1.5;2;0\n3;4;1\n",
			features: []string{"a,1", "b,2"}, labels: y, kind: ml, x: [][]float64{{1.5, 2}, {3, 4}}, y: y01},
		{name: "quoted fields", in: "\"a\",\"b \"\"x\"\"\",\"label:y\"\n\"1\",2,\"0\"\n3,\"4\",1\n",
			features: []string{"a", `b "x"`}, labels: y, kind: ml, x: x12, y: y01},
		{name: "quoted field with delimiter and line breaks",
			in:   "id,a,label:y\n\"p, \"\"q\"\"\nr\",1,0\n\"s\r\n\r\nt\",3,1\nu,5,0\n",
			opts: dataset.Options{Drop: []string{"id"}}, features: []string{"a"}, labels: y, kind: ml,
			x: [][]float64{{1}, {3}, {5}}, y: [][]float64{{0}, {1}, {0}}},
		{name: "UTF-8 BOM", in: "\xEF\xBB\xBFa,b,label:y\n1,2,0\n3,4,1\n",
			features: ab, labels: y, kind: ml, x: x12, y: y01},
		{name: "CRLF", in: "a,b,label:y\r\n1,2,0\r\n3,4,1\r\n",
			features: ab, labels: y, kind: ml, x: x12, y: y01},
		{name: "no final newline", in: "a,b,label:y\n1,2,0\n3,4,1",
			features: ab, labels: y, kind: ml, x: x12, y: y01},
		{name: "blank lines", in: "\n \na,b,label:y\n\n1,2,0\n \t \n\r\n3,4,1\n\n",
			features: ab, labels: y, kind: ml, x: x12, y: y01},
		{name: "spaces around values", in: " a , b\t, label:y \n 1 ,\t2 , 0\n3, 4 ,1 \n",
			features: ab, labels: y, kind: ml, x: x12, y: y01},
		{name: "spaces around quoted values", in: "a,b,label:y\n \"1\" , \"2\" ,0\n3,4, \"1\"\n",
			features: ab, labels: y, kind: ml, x: x12, y: y01},
		{name: "number spellings", in: "a,label:y\n1e3,0\n-.5,1\n+2.50,0\n1E-2,1\n",
			features: []string{"a"}, labels: y, kind: ml,
			x: [][]float64{{1000}, {-0.5}, {2.5}, {0.01}}, y: [][]float64{{0}, {1}, {0}, {1}}},
	})
}

// TestLoadLabelCodes checks how label values map to 0/1 and to categories.
func TestLoadLabelCodes(t *testing.T) {
	ml, md := dataset.MultiLabel, dataset.MultiDim
	runCSVCases(t, []csvCase{
		{name: "true/false, yes/no, ±1",
			in:       "a,label:t,label:y,label:s,label:b\n1,true,yes,1,1\n2,FALSE,No,-1,0\n3,True,YES,-1,0\n",
			features: []string{"a"}, labels: []string{"t", "y", "s", "b"}, kind: ml,
			x: [][]float64{{1}, {2}, {3}}, y: [][]float64{{1, 1, 1, 1}, {0, 0, 0, 0}, {1, 1, 0, 0}}},
		{name: "a column of only -1 is binary",
			in:       "a,label:s,label:b\n1,-1,1\n2,-1,0\n",
			features: []string{"a"}, labels: []string{"s", "b"}, kind: ml,
			x: [][]float64{{1}, {2}}, y: [][]float64{{0, 1}, {0, 0}}, warning: `"s"`},
		{name: "string codes sorted",
			in:       "a,label:colour,label:size\n1,red,M\n2,blue,S\n3,green,L\n4,blue,M\n",
			features: []string{"a"}, labels: []string{"colour", "size"}, kind: md,
			x: [][]float64{{1}, {2}, {3}, {4}}, y: [][]float64{{2, 1}, {0, 2}, {1, 0}, {0, 1}},
			categories: [][]string{{"blue", "green", "red"}, {"L", "M", "S"}}},
		{name: "numeric codes in numeric order",
			in:       "a,label:c\n1,10\n2,2\n3,1\n4,2\n5,-3\n",
			features: []string{"a"}, labels: []string{"c"}, kind: md,
			x: [][]float64{{1}, {2}, {3}, {4}, {5}}, y: [][]float64{{3}, {2}, {1}, {2}, {0}},
			categories: [][]string{{"-3", "1", "2", "10"}}},
		{name: "one non-binary variable makes every variable a class variable",
			in:       "a,label:p,label:c\n1,0,1\n2,1,2\n3,0,3\n",
			features: []string{"a"}, labels: []string{"p", "c"}, kind: md,
			x: [][]float64{{1}, {2}, {3}}, y: [][]float64{{0, 0}, {1, 1}, {0, 2}},
			categories: [][]string{{"0", "1"}, {"1", "2", "3"}}},
		// 0 and -1 are binary codes of different families; without a forced
		// kind such a column is read as a class variable of two categories.
		{name: "codes 0 and -1 read as categories",
			in:       "a,label:y\n1,0\n2,-1\n3,0\n",
			features: []string{"a"}, labels: []string{"y"}, kind: md,
			x: [][]float64{{1}, {2}, {3}}, y: [][]float64{{1}, {0}, {1}},
			categories: [][]string{{"-1", "0"}}},
		{name: "kind multidim forced on 0/1",
			in:   "a,label:y\n1,1\n2,0\n",
			opts: dataset.Options{Kind: md}, features: []string{"a"}, labels: []string{"y"}, kind: md,
			x: [][]float64{{1}, {2}}, y: [][]float64{{1}, {0}}, categories: [][]string{{"0", "1"}}},
		{name: "label first",
			in:       "label:y,a,b\n1,1,2\n0,3,4\n",
			features: []string{"a", "b"}, labels: []string{"y"}, kind: ml,
			x: [][]float64{{1, 2}, {3, 4}}, y: [][]float64{{1}, {0}}},
		{name: "labels in the middle",
			in:       "a,label:y,label:z,b\n1,1,0,2\n3,0,1,4\n",
			features: []string{"a", "b"}, labels: []string{"y", "z"}, kind: ml,
			x: [][]float64{{1, 2}, {3, 4}}, y: [][]float64{{1, 0}, {0, 1}}},
	})
}

// TestLoadLabelSelection checks each way of choosing the label columns.
func TestLoadLabelSelection(t *testing.T) {
	ml := dataset.MultiLabel
	x := [][]float64{{1, 2}, {3, 4}}
	runCSVCases(t, []csvCase{
		{name: "labels without the prefix",
			in:   "a,label:y,b,label:z\n1,0,2,1\n3,1,4,0\n",
			opts: dataset.Options{Labels: []string{"z"}}, features: []string{"a", "label:y", "b"}, labels: []string{"z"}, kind: ml,
			x: [][]float64{{1, 0, 2}, {3, 1, 4}}, y: [][]float64{{1}, {0}}},
		{name: "labels with the prefix",
			in:   "a,label:y,b,label:z\n1,0,2,1\n3,1,4,0\n",
			opts: dataset.Options{Labels: []string{"label:z", "label:y"}}, features: []string{"a", "b"}, labels: []string{"y", "z"}, kind: ml,
			x: x, y: [][]float64{{0, 1}, {1, 0}}},
		{name: "labels naming plain columns",
			in:   "p,a,q,b\n1,1,0,2\n0,3,1,4\n",
			opts: dataset.Options{Labels: []string{"q", "p"}}, features: []string{"a", "b"}, labels: []string{"p", "q"}, kind: ml,
			x: x, y: [][]float64{{1, 0}, {0, 1}}},
		{name: "label prefix",
			in:   "a,L_y,b,L_z\n1,0,2,1\n3,1,4,0\n",
			opts: dataset.Options{LabelPrefix: "L_"}, features: []string{"a", "b"}, labels: []string{"y", "z"}, kind: ml,
			x: x, y: [][]float64{{0, 1}, {1, 0}}},
		{name: "label prefix replaces the default",
			in:   "label:a,L_y,label:b\n1,0,2\n3,1,4\n",
			opts: dataset.Options{LabelPrefix: "L_"}, features: []string{"label:a", "label:b"}, labels: []string{"y"}, kind: ml,
			x: x, y: [][]float64{{0}, {1}}},
		{name: "label count +2",
			in:   "p,q,a,b\n1,0,1,2\n0,1,3,4\n",
			opts: dataset.Options{LabelCount: 2}, features: []string{"a", "b"}, labels: []string{"p", "q"}, kind: ml,
			x: x, y: [][]float64{{1, 0}, {0, 1}}},
		{name: "label count -2",
			in:   "a,b,p,q\n1,2,1,0\n3,4,0,1\n",
			opts: dataset.Options{LabelCount: -2}, features: []string{"a", "b"}, labels: []string{"p", "q"}, kind: ml,
			x: x, y: [][]float64{{1, 0}, {0, 1}}},
		{name: "label count ignores the prefix",
			in:   "p,a,label:b\n1,1,2\n0,3,4\n",
			opts: dataset.Options{LabelCount: 1}, features: []string{"a", "label:b"}, labels: []string{"p"}, kind: ml,
			x: x, y: [][]float64{{1}, {0}}},
		{name: "label xml",
			in:   "a,p,b,label:q\n1,1,2,0\n3,0,4,1\n",
			opts: dataset.Options{LabelXML: []string{"q", "p"}}, features: []string{"a", "b"}, labels: []string{"p", "q"}, kind: ml,
			x: x, y: [][]float64{{1, 0}, {0, 1}}},
	})
}

// TestLoadNominal checks the text-feature policies.
func TestLoadNominal(t *testing.T) {
	ml := dataset.MultiLabel
	const colours = "a,colour,label:y\n1,red,0\n2,blue,1\n3,green,0\n4,red,1\n"
	runCSVCases(t, []csvCase{
		{name: "drop", in: colours, opts: dataset.Options{Nominal: dataset.NominalDrop},
			features: []string{"a"}, labels: []string{"y"}, kind: ml,
			x: [][]float64{{1}, {2}, {3}, {4}}, y: [][]float64{{0}, {1}, {0}, {1}},
			warning: `1 text columns were left out (nominal=drop): "colour".`},
		{name: "one-hot, three categories in order of appearance", in: colours, opts: dataset.Options{Nominal: dataset.NominalOneHot},
			features: []string{"a", "colour=red", "colour=blue", "colour=green"}, labels: []string{"y"}, kind: ml,
			x: [][]float64{{1, 1, 0, 0}, {2, 0, 1, 0}, {3, 0, 0, 1}, {4, 1, 0, 0}}, y: [][]float64{{0}, {1}, {0}, {1}},
			warning: `1 text columns were one-hot encoded: "colour".`},
		{name: "one-hot, yes/no pair is one 0/1 column",
			in:   "flag,a,ok,label:y\nyes,1,F,0\nno,2,t,1\nYes,3,F,0\n",
			opts: dataset.Options{Nominal: dataset.NominalOneHot},
			// "yes" and "Yes" are two categories, so flag is not a pair.
			features: []string{"flag=yes", "flag=no", "flag=Yes", "a", "ok"}, labels: []string{"y"}, kind: ml,
			x: [][]float64{{1, 0, 0, 1, 0}, {0, 1, 0, 2, 1}, {0, 0, 1, 3, 0}}, y: [][]float64{{0}, {1}, {0}}},
		{name: "one-hot, yes/no pairs",
			in:       "a,YN,tf,single,label:y\n1,YES,true,no,0\n2,NO,false,no,1\n3,NO,true,no,0\n",
			opts:     dataset.Options{Nominal: dataset.NominalOneHot},
			features: []string{"a", "YN", "tf", "single"}, labels: []string{"y"}, kind: ml,
			x: [][]float64{{1, 1, 1, 0}, {2, 0, 0, 0}, {3, 0, 1, 0}}, y: [][]float64{{0}, {1}, {0}}},
		{name: "one-hot, numbers before text become categories",
			in:       "a,b,label:y\n1,7,0\n2,x,1\n3,7.0,0\n4,?,1\n",
			opts:     dataset.Options{Nominal: dataset.NominalOneHot, Missing: dataset.MissingMean},
			features: []string{"a", "b=7", "b=x", "b=7.0"}, labels: []string{"y"}, kind: ml,
			x: [][]float64{{1, 1, 0, 0}, {2, 0, 1, 0}, {3, 0, 0, 1}, {4, 0, 0, 0}}, y: [][]float64{{0}, {1}, {0}, {1}}},
		{name: "drop an identifier column",
			in:       "id,a,b,label:y\nP01,1,2,0\nP02,3,4,1\n",
			opts:     dataset.Options{Drop: []string{"id"}},
			features: []string{"a", "b"}, labels: []string{"y"}, kind: ml, x: [][]float64{{1, 2}, {3, 4}}, y: [][]float64{{0}, {1}}},
		{name: "drop two columns",
			in:       "id,a,note,b,label:y\nP01,1,,2,0\nP02,3,x y,4,1\n",
			opts:     dataset.Options{Drop: []string{"note", "id"}},
			features: []string{"a", "b"}, labels: []string{"y"}, kind: ml, x: [][]float64{{1, 2}, {3, 4}}, y: [][]float64{{0}, {1}}},
	})

	t.Run("reject by default", func(t *testing.T) {
		_, err := load(colours, dataset.Options{})
		checkInputError(t, err, inputErr{Line: 2, Column: "colour", Msg: `"red" is not a number`})
		if err != nil && !strings.Contains(err.Error(), "drop=colour") {
			t.Errorf("got %q, want it to suggest drop=colour", err)
		}
	})

	var ids strings.Builder
	ids.WriteString("a,id,label:y\n")
	for i := range dataset.MaxOneHotCategories + 1 {
		fmt.Fprintf(&ids, "%d,P%03d,%d\n", i, i, i%2)
	}
	t.Run("one-hot refuses an identifier", func(t *testing.T) {
		_, err := load(ids.String(), dataset.Options{Nominal: dataset.NominalOneHot})
		checkInputError(t, err, inputErr{Column: "id", Field: "nominal",
			Msg: "the column has 101 distinct values, too many to one-hot encode (at most 100): it looks like an identifier; leave it out with drop=id"})
	})
	t.Run("one-hot takes 100 categories", func(t *testing.T) {
		in := ids.String()
		in = in[:strings.LastIndex(strings.TrimSuffix(in, "\n"), "\n")+1] // drop the 101st row
		ds := mustLoad(t, in, dataset.Options{Nominal: dataset.NominalOneHot})
		if got := ds.Features.Len(); got != 1+dataset.MaxOneHotCategories {
			t.Errorf("features: got %d, want %d", got, 1+dataset.MaxOneHotCategories)
		}
	})
	t.Run("one-hot refuses numbers with a stray text value", func(t *testing.T) {
		var b strings.Builder
		b.WriteString("a,label:y\n")
		for i := range 150 {
			fmt.Fprintf(&b, "%d.5,%d\n", i, i%2)
		}
		b.WriteString("oops,1\n")
		_, err := load(b.String(), dataset.Options{Nominal: dataset.NominalOneHot})
		checkInputError(t, err, inputErr{Line: 152, Column: "a", Field: "nominal", Msg: `the column holds numbers and text ("oops")`})
	})
	t.Run("one-hot name collision", func(t *testing.T) {
		_, err := load("c,c=x,label:y\nx,1,0\nz,2,1\n", dataset.Options{Nominal: dataset.NominalOneHot})
		checkInputError(t, err, inputErr{Column: "c=x", Field: "nominal", Msg: "already taken"})
	})
	t.Run("drop leaves only text", func(t *testing.T) {
		_, err := load("a,b,label:y\nx,p,0\ny,q,1\n", dataset.Options{Nominal: dataset.NominalDrop})
		checkInputError(t, err, inputErr{Field: "nominal", Msg: `no feature column is left: every feature column holds text ("a", "b")`})
	})
}

// TestLoadFixtureCSV reads testdata/quirks.csv, a file that mixes the
// dialect features above: BOM, CRLF, semicolons, quoted names, a multi-line
// quoted identifier, blank lines and padded values.
func TestLoadFixtureCSV(t *testing.T) {
	f, err := os.Open("testdata/quirks.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ds, err := dataset.Load(f, dataset.Options{Drop: []string{"sample id"}})
	if err != nil {
		t.Fatalf("Load: got %q, want no error", err)
	}
	checkStrings(t, "Features", ds.Features.Strings(), []string{"height; cm", `the "weight"`})
	checkStrings(t, "Labels", ds.Labels.Strings(), []string{"tall", "heavy"})
	checkMatrix(t, "X", ds.X, [][]float64{{180.5, 80}, {160, 55.25}, {175, -1e-3}})
	checkMatrix(t, "Y", ds.Y, [][]float64{{1, 1}, {0, 0}, {1, 0}})

	// The same file with one bad value on its last line: the line count
	// must survive the multi-line field.
	b, err := os.ReadFile("testdata/quirks.csv")
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(b), "-1e-3", "-1e-3x", 1)
	_, err = load(bad, dataset.Options{Drop: []string{"sample id"}})
	checkInputError(t, err, inputErr{Line: 10, Column: `the "weight"`, Msg: `"-1e-3x" is not a number`})
}

// TestLoadColumns checks that the data set records the file's columns, the
// dropped and label ones included, as written.
func TestLoadColumns(t *testing.T) {
	ds := mustLoad(t, "id, a ,label:y,b,L\nP1,1,0,2,1\nP2,3,1,4,0\n",
		dataset.Options{Drop: []string{"id"}, Labels: []string{"y", "L"}})
	checkStrings(t, "Columns", ds.Columns, []string{"id", "a", "label:y", "b", "L"})
	checkStrings(t, "LabelColumns", ds.LabelColumns, []string{"label:y", "L"})
	checkStrings(t, "Labels", ds.Labels.Strings(), []string{"y", "L"})
	checkStrings(t, "Features", ds.Features.Strings(), []string{"a", "b"})
}
