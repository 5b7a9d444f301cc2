package dataset_test

import (
	"fmt"
	"strings"
	"testing"

	"mldr/internal/dataset"
)

// TestLoadRefuses checks that bad input gives an *InputError that names the
// line, column and option of the problem and says what is wrong.
func TestLoadRefuses(t *testing.T) {
	ml := dataset.MultiLabel
	tests := []refusal{
		// Empty and header-only files.
		{"empty file", "", dataset.Options{}, inputErr{Msg: "the file is empty"}},
		{"whitespace only", " \n\t\n  \r\n\n", dataset.Options{}, inputErr{Msg: "the file is empty"}},
		{"UTF-8 BOM only", "\xEF\xBB\xBF\n", dataset.Options{}, inputErr{Msg: "the file is empty"}},
		{"header only", "a,b,label:y\n", dataset.Options{}, inputErr{Line: 1, Msg: "header but no data rows"}},
		{"header only after blank lines", "\n\na,b,label:y\n\n", dataset.Options{}, inputErr{Line: 3, Msg: "header but no data rows"}},
		{"one data row", "a,label:y\n1,0\n", dataset.Options{}, inputErr{Msg: "only 1 data row; at least 2 are needed"}},
		{"single column", "a\n1\n2\n", dataset.Options{}, inputErr{Line: 1, Msg: "the header has a single column"}},

		// Ragged rows.
		{"too few fields", "a,b,label:y\n1,2,0\n3,1\n", dataset.Options{},
			inputErr{Line: 3, Msg: "expected 3 fields (as in the header), found 2"}},
		{"too many fields", "a,b,label:y\n1,2,0\n3,4,1,5\n", dataset.Options{},
			inputErr{Line: 3, Msg: "expected 3 fields (as in the header), found 4"}},

		// Cells.
		{"non-numeric feature", "a,b,label:y\n1,2,0\n3,abc,1\n", dataset.Options{},
			inputErr{Line: 3, Column: "b", Msg: `"abc" is not a number`}},
		{"decimal comma", "a;b;label:y\n1;2,5;0\n3;4;1\n", dataset.Options{},
			inputErr{Line: 2, Column: "b", Msg: `"2,5" is not a number`}},
		{"missing label with mean", "a,label:y\n1,0\n2,?\n3,1\n", dataset.Options{Missing: dataset.MissingMean},
			inputErr{Line: 3, Column: "label:y", Msg: "missing label (\"?\"); labels cannot be imputed"}},
		{"missing label by default", "a,label:y\n1,0\n2,\n3,1\n", dataset.Options{},
			inputErr{Line: 3, Column: "label:y", Msg: "missing value (an empty cell)"}},
		{"mean of a column with no values", "a,b,label:y\n?,1,0\nNA,2,1\n", dataset.Options{Missing: dataset.MissingMean},
			inputErr{Column: "a", Field: "missing", Msg: "no values at all"}},
		{"every row dropped", "a,label:y\n?,0\n1,\n", dataset.Options{Missing: dataset.MissingDropRows},
			inputErr{Field: "missing", Msg: "every one of the 2 data rows has a missing value"}},

		// Header.
		{"duplicate column names", "a,b,a,label:y\n1,2,3,0\n4,5,6,1\n", dataset.Options{},
			inputErr{Line: 1, Column: "a", Msg: `columns 1 and 3 are both named "a"`}},
		{"duplicate after trimming", "a, a ,label:y\n1,2,0\n4,5,1\n", dataset.Options{},
			inputErr{Line: 1, Column: "a", Msg: `columns 1 and 2 are both named "a"`}},
		{"empty column name", "a,,label:y\n1,2,0\n3,4,1\n", dataset.Options{},
			inputErr{Line: 1, Column: "#2", Msg: "column 2 has no name"}},
		{"no label column", "a,b\n1,2\n3,4\n", dataset.Options{},
			inputErr{Field: "labels", Msg: `no label column found: no column name starts with "label:"`}},
		{"every column a label", "label:a,label:b\n1,0\n0,1\n", dataset.Options{},
			inputErr{Field: "labels", Msg: "every column is a label"}},
		{"invalid UTF-8 in header", "a\xff,label:y\n1,0\n2,1\n", dataset.Options{},
			inputErr{Line: 1, Msg: "the header is not valid UTF-8"}},

		// Labels that do not fit the kind.
		{"value 2 with kind multilabel", "a,label:y\n1,0\n2,1\n3,2\n4,1\n", dataset.Options{Kind: ml},
			inputErr{Line: 4, Column: "label:y", Field: "kind", Msg: `"2" is not a binary label value`}},
		{"codes 0 and -1 mixed", "a,label:y\n1,0\n2,-1\n3,0\n", dataset.Options{Kind: ml},
			inputErr{Line: 3, Column: "label:y", Field: "kind", Msg: "the label values {0, -1} mix binary codes"}},
		{"codes yes and 1 mixed", "a,label:y\n1,yes\n2,1\n3,no\n", dataset.Options{Kind: ml},
			inputErr{Line: 3, Column: "label:y", Field: "kind", Msg: "mix binary codes"}},

		// Not text files. The NUL byte's line is counted.
		{"NUL byte", "a,label:y\n1,0\n2\x00,1\n", dataset.Options{}, inputErr{Line: 3, Msg: "binary data (a NUL byte)"}},
		{"ZIP (xlsx)", "PK\x03\x04\x14\x00\x06\x00[Content_Types].xml", dataset.Options{}, inputErr{Line: 1, Msg: "a ZIP archive (an Excel .xlsx file is one)"}},
		{"gzip", "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03", dataset.Options{}, inputErr{Line: 1, Msg: "gzip-compressed"}},
		{"MATLAB MAT-file", "MATLAB 5.0 MAT-file, Platform: PCWIN64, Created on: Tue Jun 15 11:56:32 2021", dataset.Options{},
			inputErr{Line: 1, Msg: "a MATLAB .mat file"}},
		{"UTF-16 LE BOM", "\xff\xfea\x00,\x00b\x00\n\x00", dataset.Options{}, inputErr{Line: 1, Msg: "UTF-16"}},
		{"UTF-16 BE BOM", "\xfe\xff\x00a\x00,\x00b\x00\n", dataset.Options{}, inputErr{Line: 1, Msg: "UTF-16"}},

		// Quoting.
		{"unterminated quoted field", "a,label:y\n1,0\n\"2,1\n3,0\n", dataset.Options{},
			inputErr{Line: 3, Column: "a", Msg: "a quoted field opened on this line is never closed"}},
		{"unterminated quoted header", "a,\"label:y\n1,0\n", dataset.Options{},
			inputErr{Line: 1, Column: "#2", Msg: "never closed"}},
		{"junk after closing quote", "a,label:y\n1,0\n\"2\"x,1\n", dataset.Options{},
			inputErr{Line: 3, Column: "a", Msg: `unexpected 'x' after the closing quote`}},
		{"error line after a multi-line quoted field", "id,a,label:y\n\"p\nq\",1,0\n\"r\r\ns\",2,1\nt,abc,0\n",
			dataset.Options{Drop: []string{"id"}},
			inputErr{Line: 6, Column: "a", Msg: `"abc" is not a number`}},

		// Option errors.
		{"labels name a missing column", "a,b,label:y\n1,2,0\n3,4,1\n", dataset.Options{Labels: []string{"z"}},
			inputErr{Field: "labels", Msg: `labels names column "z", which the file does not have`}},
		{"labels suggest a near name", "a,Yes ,c\n1,2,0\n3,4,1\n", dataset.Options{Labels: []string{"yes"}},
			inputErr{Field: "labels", Msg: `(did you mean "Yes"?)`}},
		{"labels name a column twice", "a,b,label:y\n1,2,0\n3,4,1\n", dataset.Options{Labels: []string{"y", "y"}},
			inputErr{Field: "labels", Msg: `names column "y" twice`}},
		{"labels and label_count", "a,b,label:y\n1,2,0\n3,4,1\n", dataset.Options{Labels: []string{"y"}, LabelCount: 1},
			inputErr{Field: "label_count", Msg: "give only one way of choosing labels, not labels and label_count"}},
		{"label_count and xml", "a,b,label:y\n1,2,0\n3,4,1\n", dataset.Options{LabelCount: -1, LabelXML: []string{"y"}},
			inputErr{Field: "xml", Msg: "not label_count and xml"}},
		{"xml names a missing label", "a,b,label:y\n1,2,0\n3,4,1\n", dataset.Options{LabelXML: []string{"y", "q"}},
			inputErr{Field: "xml", Msg: `xml names column "q"`}},
		{"label_count too large", "a,b,c\n1,2,0\n3,4,1\n", dataset.Options{LabelCount: 3},
			inputErr{Field: "label_count", Msg: "label_count 3 leaves no feature column: the file has 3 columns"}},
		{"label_count too small", "a,b,c\n1,2,0\n3,4,1\n", dataset.Options{LabelCount: -4},
			inputErr{Field: "label_count", Msg: "label_count -4 leaves no feature column"}},
		{"drop names a label column", "a,b,label:y\n1,2,0\n3,4,1\n", dataset.Options{Drop: []string{"label:y"}},
			inputErr{Field: "drop", Msg: `column "label:y" is a label and cannot be dropped`}},
		{"drop names a missing column", "a,b,label:y\n1,2,0\n3,4,1\n", dataset.Options{Drop: []string{"B"}},
			inputErr{Field: "drop", Msg: `drop names column "B", which the file does not have (did you mean "b"?)`}},
		{"drop leaves no feature", "id,label:y\np,0\nq,1\n", dataset.Options{Drop: []string{"id"}},
			inputErr{Field: "drop", Msg: "no feature column is left"}},
		{"drop holds an empty name", "a,b,label:y\n1,2,0\n3,4,1\n", dataset.Options{Drop: []string{""}},
			inputErr{Field: "drop", Msg: "empty column name"}},
		{"bad missing", "a,label:y\n1,0\n2,1\n", dataset.Options{Missing: "zero"},
			inputErr{Field: "missing", Msg: `not "zero"`}},
		{"bad nominal", "a,label:y\n1,0\n2,1\n", dataset.Options{Nominal: "encode"},
			inputErr{Field: "nominal", Msg: `not "encode"`}},
		{"bad kind", "a,label:y\n1,0\n2,1\n", dataset.Options{Kind: "binary"},
			inputErr{Field: "kind", Msg: `not "binary"`}},
		{"bad format", "a,label:y\n1,0\n2,1\n", dataset.Options{Format: "xlsx"},
			inputErr{Field: "format", Msg: `not "xlsx"`}},
	}
	checkRefusals(t, tests)
}

// TestLoadMissingTokens checks each spelling of a missing value under the
// three policies: refused by default, its row dropped with drop-rows, and
// replaced by the column mean with mean.
func TestLoadMissingTokens(t *testing.T) {
	// Column b has values 2, (missing), 5, 7 on lines 2–5.
	const tmpl = "a,b,label:y\n1,2,0\n3,%s,1\n4,5,0\n6,7,1\n"
	for _, tok := range []string{"", "?", "NA", "NaN", "nan", "N/A", "null", " ? "} {
		in := fmt.Sprintf(tmpl, tok)
		t.Run(fmt.Sprintf("%q/reject", tok), func(t *testing.T) {
			_, err := load(in, dataset.Options{})
			checkInputError(t, err, inputErr{Line: 3, Column: "b", Msg: "missing value"})
			if err != nil && !strings.Contains(err.Error(), "missing=drop-rows or missing=mean") {
				t.Errorf("got %q, want it to name the policies that accept missing values", err)
			}
		})
		t.Run(fmt.Sprintf("%q/drop-rows", tok), func(t *testing.T) {
			ds := mustLoad(t, in, dataset.Options{Missing: dataset.MissingDropRows})
			checkMatrix(t, "X", ds.X, [][]float64{{1, 2}, {4, 5}, {6, 7}})
			checkMatrix(t, "Y", ds.Y, [][]float64{{0}, {0}, {1}})
			checkWarning(t, ds, "1 rows with missing values were left out (the first on line 3)")
		})
		t.Run(fmt.Sprintf("%q/mean", tok), func(t *testing.T) {
			ds := mustLoad(t, in, dataset.Options{Missing: dataset.MissingMean})
			mean := (2.0 + 5 + 7) / 3 // the mean over the rows that have a value
			checkMatrix(t, "X", ds.X, [][]float64{{1, 2}, {3, mean}, {4, 5}, {6, 7}})
			checkMatrix(t, "Y", ds.Y, [][]float64{{0}, {1}, {0}, {1}})
			checkWarning(t, ds, "1 missing feature values were replaced by their column's mean")
		})
	}
	t.Run("missing label dropped", func(t *testing.T) {
		ds := mustLoad(t, "a,label:y\n1,0\n2,NA\n3,1\n4,?\n", dataset.Options{Missing: dataset.MissingDropRows})
		checkMatrix(t, "X", ds.X, [][]float64{{1}, {3}})
		checkWarning(t, ds, "2 rows with missing values were left out (the first on line 3)")
	})
}

// TestLoadInfinite checks that infinite and overflowing numbers are refused,
// not read as missing values, even when missing values are accepted.
func TestLoadInfinite(t *testing.T) {
	for _, tok := range []string{"+Inf", "-inf", "Infinity", "-Infinity", "1e400", "-1e400", "inf"} {
		for _, policy := range []dataset.MissingPolicy{dataset.MissingReject, dataset.MissingMean} {
			t.Run(tok+"/"+string(policy), func(t *testing.T) {
				in := fmt.Sprintf("a,b,label:y\n1,2,0\n3,%s,1\n", tok)
				_, err := load(in, dataset.Options{Missing: policy})
				checkInputError(t, err, inputErr{Line: 3, Column: "b", Msg: "is infinite or out of range"})
			})
		}
	}
	t.Run("tiny numbers underflow to zero", func(t *testing.T) {
		ds := mustLoad(t, "a,label:y\n1e-400,0\n5e-324,1\n", dataset.Options{})
		checkMatrix(t, "X", ds.X, [][]float64{{0}, {5e-324}})
	})
}

// TestLoadGoSyntax checks that numbers in Go's syntax, which
// strconv.ParseFloat reads but no spreadsheet writes, are refused in every
// format with the cell named and its decimal spelling, under every missing
// policy; that the spellings strconv refuses as well keep their refusal;
// and that a column of them is text for nominal=onehot, as any text is.
func TestLoadGoSyntax(t *testing.T) {
	const hexFirst = `; if the column is not numeric, leave it out with drop=b, or encode it with nominal=onehot`
	tests := []refusal{
		{"hexadecimal", "a,b,label:y\n1,2,0\n3,0x1p3,1\n", dataset.Options{},
			inputErr{Line: 3, Column: "b", Msg: `"0x1p3" is written in hexadecimal, which is not read as a number; write it in decimal (8)`}},
		{"hexadecimal, capitals", "a,b,label:y\n1,2,0\n3,0X1P-2,1\n", dataset.Options{},
			inputErr{Line: 3, Column: "b", Msg: `"0X1P-2" is written in hexadecimal, which is not read as a number; write it in decimal (0.25)`}},
		{"hexadecimal, signed", "a,b,label:y\n1,2,0\n3,+0x1p3,1\n", dataset.Options{},
			inputErr{Line: 3, Column: "b", Msg: `"+0x1p3" is written in hexadecimal, which is not read as a number; write it in decimal (8)`}},
		{"hexadecimal, negative fraction", "a,b,label:y\n1,2,0\n3,-0x1.8p1,1\n", dataset.Options{},
			inputErr{Line: 3, Column: "b", Msg: `"-0x1.8p1" is written in hexadecimal, which is not read as a number; write it in decimal (-3)`}},
		{"hexadecimal beyond float64", "a,b,label:y\n1,2,0\n3,0x1p9999,1\n", dataset.Options{},
			inputErr{Line: 3, Column: "b", Msg: `"0x1p9999" is written in hexadecimal, which is not read as a number; write it in decimal`}},
		{"hexadecimal, quoted", "a,b,label:y\n1,2,0\n3,\" 0x1p3 \",1\n", dataset.Options{},
			inputErr{Line: 3, Column: "b", Msg: `"0x1p3" is written in hexadecimal`}},
		{"hexadecimal in the first row", "a,b,label:y\n1,0x1p3,0\n3,4,1\n", dataset.Options{},
			inputErr{Line: 2, Column: "b", Msg: `"0x1p3" is written in hexadecimal, which is not read as a number; write it in decimal (8)` + hexFirst}},
		{"underscores", "a,b,label:y\n1,2,0\n3,1_000,1\n", dataset.Options{},
			inputErr{Line: 3, Column: "b", Msg: `"1_000" separates its digits with "_", which is not read as a number; write it without them (1000)`}},
		{"underscores with a fraction", "a,b,label:y\n1,2,0\n3,1_0.5,1\n", dataset.Options{},
			inputErr{Line: 3, Column: "b", Msg: `"1_0.5" separates its digits with "_", which is not read as a number; write it without them (10.5)`}},
		{"underscores in the exponent", "a,b,label:y\n1,2,0\n3,1e1_0,1\n", dataset.Options{Missing: dataset.MissingMean},
			inputErr{Line: 3, Column: "b", Msg: `"1e1_0" separates its digits with "_", which is not read as a number; write it without them (1e10)`}},
		{"underscores with drop-rows", "a,b,label:y\n1,2,0\n3,-1_000,1\n", dataset.Options{Missing: dataset.MissingDropRows},
			inputErr{Line: 3, Column: "b", Msg: `"-1_000" separates its digits with "_"`}},
		{"not Go's syntax either: 0x10", "a,b,label:y\n1,2,0\n3,0x10,1\n", dataset.Options{},
			inputErr{Line: 3, Column: "b", Msg: `"0x10" is not a number; feature values must be numbers`}},
		{"not Go's syntax either: 1__0", "a,b,label:y\n1,2,0\n3,1__0,1\n", dataset.Options{},
			inputErr{Line: 3, Column: "b", Msg: `"1__0" is not a number; feature values must be numbers`}},
		{"ARFF numeric", "@relation r\n@attribute a numeric\n@attribute y {0,1}\n@data\n1,1\n1_0,0\n", dataset.Options{Labels: []string{"y"}},
			inputErr{Line: 6, Column: "a", Msg: `"1_0" separates its digits with "_", which is not read as a number; write it without them (10)`}},
		{"ARFF sparse", "@relation r\n@attribute a numeric\n@attribute y {0,1}\n@data\n{0 1,1 1}\n{0 0x1p1}\n", dataset.Options{Labels: []string{"y"}},
			inputErr{Line: 6, Column: "a", Msg: `"0x1p1" is written in hexadecimal, which is not read as a number; write it in decimal (2)`}},
		{"ARFF nominal of Go numbers is text", "@relation r\n@attribute a {1_0,2_0}\n@attribute y {0,1}\n@data\n1_0,1\n2_0,0\n", dataset.Options{Labels: []string{"y"}},
			inputErr{Line: 2, Column: "a", Msg: `a nominal attribute with text values {1_0, 2_0} cannot be a feature`}},
		{"libsvm", "1 1:1 2:5\n0 1:0x1p3\n", dataset.Options{},
			inputErr{Line: 2, Column: "f1", Msg: `"0x1p3" is written in hexadecimal, which is not read as a number; write it in decimal (8)`}},
		{"libsvm, first line", "1 1:1_000 2:5\n0 1:3\n", dataset.Options{},
			inputErr{Line: 1, Column: "f1", Msg: `"1_000" separates its digits with "_", which is not read as a number; write it without them (1000)`}},
	}
	checkRefusals(t, tests)
	t.Run("text for nominal=onehot", func(t *testing.T) {
		ds := mustLoad(t, "a,b,label:y\n1,1_000,0\n3,0x1p3,1\n", dataset.Options{Nominal: dataset.NominalOneHot})
		if got, want := strings.Join(ds.Features.Strings(), ","), "a,b=1_000,b=0x1p3"; got != want {
			t.Errorf("features: got %s, want %s", got, want)
		}
	})
	t.Run("label values are text", func(t *testing.T) {
		// 0x0p0 and 0x1p0 are not the binary code 0/1: two classes, as written.
		ds := mustLoad(t, "a,label:y\n1,0x0p0\n2,0x1p0\n3,0x0p0\n", dataset.Options{})
		if ds.Kind != dataset.MultiDim {
			t.Errorf("kind: got %s, want %s", ds.Kind, dataset.MultiDim)
		}
	})
}

// TestLoadWarnings checks what the loader accepts but warns about.
func TestLoadWarnings(t *testing.T) {
	t.Run("constant label", func(t *testing.T) {
		ds := mustLoad(t, "a,label:y,label:z\n1,0,1\n2,0,0\n3,0,1\n", dataset.Options{})
		checkStrings(t, "Labels", ds.Labels.Strings(), []string{"y", "z"})
		checkMatrix(t, "Y", ds.Y, [][]float64{{0, 1}, {0, 0}, {0, 1}})
		checkWarning(t, ds, `1 labels are constant (the same value in every row) and carry no information: "y".`)
	})
	t.Run("constant class variable", func(t *testing.T) {
		ds := mustLoad(t, "a,label:c,label:d\n1,x,p\n2,x,q\n3,x,r\n", dataset.Options{})
		if ds.Kind != dataset.MultiDim {
			t.Fatalf("Kind: got %q, want %q", ds.Kind, dataset.MultiDim)
		}
		checkWarning(t, ds, `1 labels are constant`)
		checkWarning(t, ds, `"c"`)
	})
	t.Run("zero-variance feature", func(t *testing.T) {
		ds := mustLoad(t, "a,b,c,label:y\n1,5,0,0\n2,5,0,1\n3,5.0,-0,1\n", dataset.Options{})
		checkStrings(t, "Features", ds.Features.Strings(), []string{"a", "b", "c"})
		checkMatrix(t, "X", ds.X, [][]float64{{1, 5, 0}, {2, 5, 0}, {3, 5, negZero}})
		checkWarning(t, ds, `2 features have zero variance (the same value in every row) and carry no information: "b", "c".`)
	})
	t.Run("no warnings", func(t *testing.T) {
		ds := mustLoad(t, "a,label:y\n1,0\n2,1\n", dataset.Options{})
		if len(ds.Warnings) != 0 {
			t.Errorf("Warnings: got %q, want none", ds.Warnings)
		}
	})
}

// negZero is -0, which the loader must keep as written.
var negZero = func() float64 { z := 0.0; return -z }()
