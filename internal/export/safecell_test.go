package export

import (
	"bytes"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestSafeCell checks that text a spreadsheet would read as a formula gets
// a leading "'", and that numbers and other text are left as they are.
func TestSafeCell(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`=HYPERLINK("http://evil.example","x")`, `'=HYPERLINK("http://evil.example","x")`},
		{"+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0"},
		{"@SUM(A1:A2)", "'@SUM(A1:A2)"},
		{"-x", "'-x"},
		{"\tx", "'\tx"},
		{"\rx", "'\rx"},
		{"-", "'-"},
		{"-1.5", "-1.5"},
		{"+2", "+2"},
		{"-1e-300", "-1e-300"},
		{"-Inf", "-Inf"},
		{"", ""},
		{"a=b", "a=b"},
		{"label:y", "label:y"},
		{"'=x", "'=x"},
	} {
		if got := SafeCell(tc.in); got != tc.want {
			t.Errorf("SafeCell(%q): got %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestWriteMatrixCSVNeutralisesNames checks that row names, column names
// and the first header cell pass through SafeCell, and values do not.
func TestWriteMatrixCSVNeutralisesNames(t *testing.T) {
	var buf bytes.Buffer
	m := mat.NewDense(2, 1, []float64{-1.5, 2})
	if err := WriteMatrixCSV(&buf, []string{"=HYPERLINK(\"x\")", "@SUM"}, []string{"+cmd"}, "-name", m); err != nil {
		t.Fatalf("WriteMatrixCSV: got %v, want nil", err)
	}
	want := "'-name,'+cmd\n\"'=HYPERLINK(\"\"x\"\")\",-1.5\n'@SUM,2\n"
	if got := buf.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if strings.Contains(buf.String(), "\n=") {
		t.Errorf("a line starts with '=': %q", buf.String())
	}
}
