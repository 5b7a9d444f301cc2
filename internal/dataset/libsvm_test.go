package dataset_test

import (
	"bytes"
	"errors"
	"math"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"mldr/internal/dataset"
)

// TestLibSVM loads libsvm and XMC files: with and without the header, 1-
// and 0-based feature indices, rows without labels, unsorted features.
// Without a header the labels are those that occur, in the order of
// their first appearance; with one, the q it declares.
func TestLibSVM(t *testing.T) {
	negZero := math.Copysign(0, -1)
	tests := []struct {
		name     string
		in       string
		features []string
		labels   []string
		x, y     [][]float64
		warn     string
	}{
		{
			name:     "libsvm, 1-based",
			in:       "0,2 1:0.5 3:1\n1 2:-1.5\n",
			features: []string{"f1", "f2", "f3"},
			labels:   []string{"l0", "l2", "l1"},
			x:        [][]float64{{0.5, 0, 1}, {0, -1.5, 0}},
			y:        [][]float64{{1, 1, 0}, {0, 0, 1}},
		},
		{
			name:     "libsvm, index 0 makes it 0-based",
			in:       "1 0:2 2:1\n0 1:3\n",
			features: []string{"f0", "f1", "f2"},
			labels:   []string{"l1", "l0"},
			x:        [][]float64{{2, 0, 1}, {0, 3, 0}},
			y:        [][]float64{{1, 0}, {0, 1}},
		},
		{
			name:     "XMC header, 0-based",
			in:       "3 4 3\n0,1 0:1 3:2\n2 1:1.5\n 2:1\n",
			features: []string{"f0", "f1", "f2", "f3"},
			labels:   []string{"l0", "l1", "l2"},
			x:        [][]float64{{1, 0, 0, 2}, {0, 1.5, 0, 0}, {0, 0, 1, 0}},
			y:        [][]float64{{1, 1, 0}, {0, 0, 1}, {0, 0, 0}},
		},
		{
			name:     "header, index D makes it 1-based",
			in:       "2 3 2\n0 1:1 3:2\n1 2:1\n",
			features: []string{"f1", "f2", "f3"},
			labels:   []string{"l0", "l1"},
			x:        [][]float64{{1, 0, 2}, {0, 1, 0}},
			y:        [][]float64{{1, 0}, {0, 1}},
		},
		{
			name:     "header declares features and labels no row has",
			in:       "2 5 4\n0 0:1\n1 1:1\n",
			features: []string{"f0", "f1", "f2", "f3", "f4"},
			labels:   []string{"l0", "l1", "l2", "l3"},
			x:        [][]float64{{1, 0, 0, 0, 0}, {0, 1, 0, 0, 0}},
			y:        [][]float64{{1, 0, 0, 0}, {0, 1, 0, 0}},
			warn:     `2 labels are constant (the same value in every row) and carry no information: "l2", "l3".`,
		},
		{
			name:     "no labels on a line, tabs, CRLF, blank lines, unsorted features",
			in:       "0 3:1\t1:2\r\n\n\t2:5\r\n0,1 1:1\n",
			features: []string{"f1", "f2", "f3"},
			labels:   []string{"l0", "l1"},
			x:        [][]float64{{2, 0, 1}, {0, 5, 0}, {1, 0, 0}},
			y:        [][]float64{{1, 0}, {0, 0}, {1, 1}},
		},
		{
			name:     "explicit zeros, -0 and exponents",
			in:       "0 1:0 2:-0 3:1e2\n1 1:+2.5e-1 3:0.0\n",
			features: []string{"f1", "f2", "f3"},
			labels:   []string{"l0", "l1"},
			x:        [][]float64{{0, negZero, 100}, {0.25, 0, 0}},
			y:        [][]float64{{1, 0}, {0, 1}},
			warn:     `1 features have zero variance (the same value in every row) and carry no information: "f2".`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ds := mustLoad(t, tc.in, dataset.Options{})
			if ds.Kind != dataset.MultiLabel {
				t.Errorf("Kind: got %q, want multilabel", ds.Kind)
			}
			checkStrings(t, "Features", ds.Features.Strings(), tc.features)
			checkStrings(t, "Labels", ds.Labels.Strings(), tc.labels)
			if len(ds.Columns) != 0 || len(ds.LabelColumns) != 0 {
				t.Errorf("Columns, LabelColumns: got %q, %q, want none (a libsvm file names no columns)", ds.Columns, ds.LabelColumns)
			}
			if !ds.Features.Numbered() || !ds.Labels.Numbered() {
				t.Errorf("names: got listed, want numbered (nothing held per column)")
			}
			checkMatrix(t, "X", ds.Dense(), tc.x)
			checkMatrix(t, "Y", ds.DenseY(), tc.y)
			if tc.warn != "" {
				checkWarning(t, ds, tc.warn)
			}
			forced := mustLoad(t, tc.in, dataset.Options{Format: dataset.FormatLibSVM})
			checkMatrix(t, "X (format=libsvm)", forced.Dense(), tc.x)
			sp, err := dataset.LoadStored(strings.NewReader(tc.in), dataset.Options{}, dataset.StorageSparse)
			if err != nil {
				t.Fatal(err)
			}
			checkMatrix(t, "X (sparse)", sp.Dense(), tc.x)
		})
	}
}

// TestLibSVMStorage checks that a wide libsvm file is held sparse and a
// dense one dense.
func TestLibSVMStorage(t *testing.T) {
	var wide, dense strings.Builder
	for i := range 400 {
		wide.WriteString("0 ")
		dense.WriteString("1 ")
		for j := range 300 {
			if (i+j)%20 == 0 {
				wide.WriteString(" " + strconv.Itoa(j+1) + ":1.5")
			}
			dense.WriteString(" " + strconv.Itoa(j+1) + ":2")
		}
		wide.WriteString("\n")
		dense.WriteString("\n")
	}
	if ds := mustLoad(t, wide.String(), dataset.Options{}); !ds.IsSparse() {
		t.Errorf("wide: got dense, want sparse")
	}
	if ds := mustLoad(t, dense.String(), dataset.Options{}); ds.IsSparse() {
		t.Errorf("dense: got sparse, want dense")
	}
}

// TestLibSVMRefusals checks that every refusal names its line and column.
func TestLibSVMRefusals(t *testing.T) {
	svm := dataset.Options{Format: dataset.FormatLibSVM}
	checkRefusals(t, []refusal{
		{"not index:value", "0 1:1\n1 2:1 x\n", svm, inputErr{Line: 2, Column: "#3", Msg: `"x" is not an index:value pair`}},
		{"index not a number", "0 1:1\n1 a:1\n", svm, inputErr{Line: 2, Column: "#2", Msg: `"a" is not a feature index`}},
		{"negative index", "0 1:1\n1 -1:1\n", svm, inputErr{Line: 2, Column: "#2", Msg: `"-1" is not a feature index`}},
		{"index too large", "0 1:1\n1 2147483647:1\n", svm, inputErr{Line: 2, Column: "#2", Msg: "indices go up to 2147483646"}},
		{"index 2³¹, detected", "0 1:1\n1 2147483648:1\n", dataset.Options{}, inputErr{Line: 2, Column: "#2", Msg: "too large"}},
		{"index 1e12, detected", "0 1e12:1\n1 2:1\n", dataset.Options{}, inputErr{Line: 1, Column: "#2", Msg: `"1e12" is not a feature index`}},
		{"index −1, detected", "0 -1:1\n1 2:1\n", dataset.Options{}, inputErr{Line: 1, Column: "#2", Msg: `"-1" is not a feature index`}},
		{"label index 2³¹, detected", "2147483648 1:1\n1 2:1\n", dataset.Options{}, inputErr{Line: 1, Column: "labels", Msg: "label index \"2147483648\" is too large"}},
		{"label index −1, detected", "0,-1 1:1\n1 2:1\n", dataset.Options{}, inputErr{Line: 1, Column: "labels", Msg: `"-1" is not a label index`}},
		{"label beyond the header, detected", "2 3 2\n0 1:1\n1999999 2:1\n", dataset.Options{}, inputErr{Line: 3, Column: "l1999999", Msg: "beyond the 2 labels the header (line 1) declares (0 to 1)"}},
		{"header after blank lines", "\n\n2 3 2\n0 1:1\n5 2:1\n", dataset.Options{}, inputErr{Line: 5, Column: "l5", Msg: "the header (line 3)"}},
		{"header declaring too much", "2 3 2147483648\n0 1:1\n1 2:1\n", dataset.Options{}, inputErr{Line: 1, Msg: "at most 2147483647 of each"}},
		{"value not a number", "0 1:1\n1 2:abc\n", svm, inputErr{Line: 2, Column: "f2", Msg: `"abc" is not a number`}},
		{"value missing", "0 1:1\n1 2:\n", svm, inputErr{Line: 2, Column: "f2", Msg: `"" is not a number`}},
		{"value NaN", "0 1:1\n1 2:nan\n", svm, inputErr{Line: 2, Column: "f2", Msg: "no missing values"}},
		{"value infinite", "0 1:1\n1 2:1e999\n", svm, inputErr{Line: 2, Column: "f2", Msg: "infinite"}},
		{"feature twice", "0 1:1\n1 3:1 2:1 3:2\n", svm, inputErr{Line: 2, Column: "f3", Msg: "appears twice"}},
		{"label not an index", "0 1:1\n1,x 2:1\n", svm, inputErr{Line: 2, Column: "labels", Msg: `"x" is not a label index`}},
		{"empty label", "0 1:1\n1,,2 2:1\n", svm, inputErr{Line: 2, Column: "labels", Msg: "an empty label index"}},
		{"label twice", "0 1:1\n1,1 2:1\n", svm, inputErr{Line: 2, Column: "l1", Msg: "appears twice"}},
		{"label beyond the header", "2 3 2\n0 1:1\n2 2:1\n", dataset.Options{}, inputErr{Line: 3, Column: "l2", Msg: "beyond the 2 labels"}},
		{"feature beyond the header", "2 3 2\n0 1:1\n1 4:1\n", dataset.Options{}, inputErr{Line: 3, Column: "f4", Msg: "beyond the 3 features"}},
		{"indices 0 to D with a header", "2 3 2\n0 0:1\n1 3:1\n", dataset.Options{}, inputErr{Line: 3, Msg: "run from 0 (line 2) to 3 (line 3)"}},
		{"rows fewer than the header's", "3 3 2\n0 1:1\n1 2:1\n", dataset.Options{}, inputErr{Line: 1, Msg: "the header says 3 rows but the file has 2"}},
		{"one row", "0 1:1\n", svm, inputErr{Msg: "only 1 data row"}},
		{"no rows", "0 3 2\n\n", svm, inputErr{Line: 2, Msg: "no data rows"}},
		{"no features", "0\n1\n", svm, inputErr{Msg: "no row of the file has a feature"}},
		{"no labels", " 1:1\n 2:1\n", svm, inputErr{Column: "labels", Msg: "no row of the file has a label"}},
		{"labels option", "0 1:1\n1 2:1\n", dataset.Options{Format: dataset.FormatLibSVM, Labels: []string{"l0"}}, inputErr{Field: "labels", Msg: "takes no labels"}},
		{"label_count option", "0 1:1\n1 2:1\n", dataset.Options{Format: dataset.FormatLibSVM, LabelCount: 1}, inputErr{Field: "label_count", Msg: "takes no labels"}},
		{"multidim", "0 1:1\n1 2:1\n", dataset.Options{Format: dataset.FormatLibSVM, Kind: dataset.MultiDim}, inputErr{Field: "kind", Msg: "multi-label"}},
		{"drop", "0 1:1\n1 2:1\n", dataset.Options{Format: dataset.FormatLibSVM, Drop: []string{"f1"}}, inputErr{Field: "drop", Msg: "cannot be left out"}},
		{"unknown format", "0 1:1\n", dataset.Options{Format: "svmlight"}, inputErr{Field: "format", Msg: "csv, arff or libsvm"}},
	})
}

// TestDetectLibSVM checks which first lines make Load read libsvm.
func TestDetectLibSVM(t *testing.T) {
	var long strings.Builder
	long.WriteString("0,1")
	for j := range 1000 {
		long.WriteString(" " + strconv.Itoa(10000+j) + ":0.123456789")
	}
	longRow := long.String() + "\n1 1:1\n"
	labelRow := func(n int) string {
		var b strings.Builder
		for j := range n {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(j))
		}
		return b.String() + " 1:1\n0 2:1\n"
	}
	longLabels, longerLabels := labelRow(5000), labelRow(200000)
	for _, tc := range []struct {
		name, in string
		svm      bool
	}{
		{"labels and features", "0,1 1:1\n1 2:1\n", true},
		{"no labels on the first line", " 1:1\n1 2:1\n", true},
		{"a feature first", "1:1\n1 2:1\n", true},
		{"XMC header", "2 2 2\n0 0:1\n1 1:1\n", true},
		{"a first line longer than the sniffed head", longRow, true},
		{"a first line of labels longer than the sniffed head", longLabels, true},
		{"a first line of labels longer than the reading buffer", longerLabels, true},
		{"CSV", "a,label:y\n1,0\n2,1\n", false},
		{"CSV header of names with colons", "x:1,label:y\n1,0\n2,1\n", false},
		{"tab-separated header of numbers", "1\t2\tlabel:3\n1\t0\t1\n2\t1\t0\n", false},
		{"ARFF", "@relation r\n@attribute a numeric\n@attribute label:y {0,1}\n@data\n1,0\n2,1\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds, err := load(tc.in, dataset.Options{})
			if err != nil {
				t.Fatalf("got error %q, want none", err)
			}
			isSVM := ds.Features.Numbered()
			if isSVM != tc.svm {
				t.Errorf("read as libsvm: got %v, want %v (features %q, labels %q)", isSVM, tc.svm, ds.Features, ds.Labels)
			}
		})
	}
}

// TestLoadFeaturesLibSVM projects new rows given as libsvm: features are
// found by their names "f<index>", whichever others the file has.
func TestLoadFeaturesLibSVM(t *testing.T) {
	x, err := dataset.LoadFeatures(strings.NewReader("3 1:1 7:2\n 2:5\n"), []string{"f7", "f2", "f9"}, nil)
	if err != nil {
		t.Fatalf("got error %q, want none", err)
	}
	checkMatrix(t, "X", x, [][]float64{{2, 0, 0}, {0, 5, 0}})
	_, err = dataset.LoadFeatures(strings.NewReader("3 1:1 7:2\n 2:5\n"), []string{"f7", "age"}, nil)
	checkInputError(t, err, inputErr{Field: "file", Msg: `lacks 1 of the model's feature columns: "age"`})
}

// FuzzLibSVM checks the libsvm reader: no panic; a data set that passes
// Validate, survives the binary round trip and is the same forced dense
// or sparse; or an *InputError that names a line or an option.
func FuzzLibSVM(f *testing.F) {
	for _, s := range []string{
		"0,2 1:0.5 3:1\n1 2:-1.5\n",
		"3 4 3\n0,1 0:1 3:2\n2 1:1.5\n 2:1\n",
		"2 3 2\n0 1:1 3:2\n1 2:1\n",
		"0 3:1\t1:2\r\n\n\t2:5\r\n1:1 0,1\n",
		"0 1:0 2:-0 3:1e2\n1 1:+2.5e-1 3:0.0\n",
		"0 1:1\n1 3:1 2:1 3:2\n",
		"0,1 1:1\n1:1 0,1\n",
		"2 3 2\n0 0:1\n1 3:1\n",
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, forceFormat bool) {
		opts := dataset.Options{}
		if forceFormat {
			opts.Format = dataset.FormatLibSVM
		}
		ds, err := dataset.Load(bytes.NewReader(data), opts)
		if err != nil {
			var ie *dataset.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("got error %q of type %T, want an *InputError", err, err)
			}
			if ie.Msg == "" || ie.Line < 0 {
				t.Fatalf("got an InputError %#v with no message or a negative line", ie)
			}
			if forceFormat && ie.Line == 0 && ie.Column == "" && ie.Field == "" && !strings.Contains(ie.Msg, "data row") && !strings.Contains(ie.Msg, "no row") && ie.Msg != "the file is empty" {
				t.Fatalf("got %q, want a line, a column or a field named", err)
			}
			return
		}
		if err := ds.Validate(); err != nil {
			t.Fatalf("Validate: got %q, want nil", err)
		}
		var buf bytes.Buffer
		if err := dataset.WriteBinary(&buf, ds); err != nil {
			t.Fatalf("WriteBinary: got %q, want no error", err)
		}
		back, err := dataset.ReadBinary(&buf, int64(buf.Len()))
		if err != nil {
			t.Fatalf("ReadBinary: got %q, want no error", err)
		}
		if d := diffLoads(back, nil, ds, nil); d != "" {
			t.Fatalf("binary round trip: %s", d)
		}
		checkForms(t, data, opts)
	})
}

// TestLibSVMCostsWhatItHolds loads files that declare or use far more
// columns than they hold: nothing is held per column or label no row
// has, the labels are held sparse when that is smaller, and the label
// statistics count only the labels that occur.
func TestLibSVMCostsWhatItHolds(t *testing.T) {
	for _, tc := range []struct {
		name       string
		in         string
		rows, d, q int
		labels     []string // the first names
		constant   int      // constant labels
		sparseY    bool
	}{
		{"a label index of 1 999 999, no header", "0,1999999 1:0.5 2:1.0\n1 1:0.2 2:0.3\n", 2, 2, 3, []string{"l0", "l1999999", "l1"}, 0, false},
		{"a feature index of 2 147 483 646", "0 2147483646:1\n1 1:0.3\n", 2, 2147483646, 2, []string{"l0", "l1"}, 0, false},
		{"a header declaring 2 000 000 labels over 2 rows", "2 3 2000000\n0 1:1\n5 2:1\n", 2, 3, 2000000, []string{"l0", "l1", "l2"}, 1999998, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			ds := mustLoad(t, tc.in, dataset.Options{})
			s, det := dataset.Describe(ds)
			runtime.ReadMemStats(&after)
			if got := after.TotalAlloc - before.TotalAlloc; got > 4<<20 {
				t.Errorf("loading and describing it allocated %d bytes, want at most 4 MiB", got)
			}
			if ds.Rows() != tc.rows || s.Features != tc.d || s.LabelCount != tc.q {
				t.Errorf("shape: got %d×%d with %d labels, want %d×%d with %d", ds.Rows(), s.Features, s.LabelCount, tc.rows, tc.d, tc.q)
			}
			checkStrings(t, "first labels", det.Labels.Head(len(tc.labels)), tc.labels)
			if s.ConstantLabels != tc.constant {
				t.Errorf("constant labels: got %d, want %d", s.ConstantLabels, tc.constant)
			}
			if (ds.YSparse != nil) != tc.sparseY {
				t.Errorf("labels held sparse: got %v, want %v", ds.YSparse != nil, tc.sparseY)
			}
		})
	}
}
