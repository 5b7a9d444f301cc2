package dataset_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"mldr/internal/dataset"
)

// fastChunks are the fast path's chunk sizes the tests try: tiny ones cut
// nearly every line across chunks and keep all the workers' slots busy; 0
// is the default.
var fastChunks = []int{1, 7, 64, 1000, 0}

// checkSameLoad fails t unless loading data with opts through the CSV fast
// path at every chunk size gives what the plain loop gives: the same data
// set (X and Y bit for bit, names, kind, categories, warnings) or the same
// error. With failRead the reader fails after data.
func checkSameLoad(t *testing.T, data []byte, opts dataset.Options, failRead bool, chunks ...int) {
	t.Helper()
	load := func(chunk int) (*dataset.Dataset, error) {
		var r io.Reader = bytes.NewReader(data)
		if failRead {
			r = io.MultiReader(r, errReader{})
		}
		return dataset.LoadChunked(r, opts, chunk)
	}
	want, werr := load(-1)
	for _, chunk := range chunks {
		got, err := load(chunk)
		if d := diffLoads(got, err, want, werr); d != "" {
			t.Fatalf("chunk %d: %s\ninput %q", chunk, d, clipInput(data))
		}
	}
}

func clipInput(b []byte) []byte {
	if len(b) > 2000 {
		return append(b[:2000:2000], "…"...)
	}
	return b
}

// diffLoads describes how two loads differ, or returns "".
func diffLoads(got *dataset.Dataset, gerr error, want *dataset.Dataset, werr error) string {
	if (gerr == nil) != (werr == nil) {
		return fmt.Sprintf("got error %v, want %v", gerr, werr)
	}
	if gerr != nil {
		var gi, wi *dataset.InputError
		if errors.As(gerr, &gi) != errors.As(werr, &wi) || (gi != nil && *gi != *wi) || gerr.Error() != werr.Error() {
			return fmt.Sprintf("got error %#v (%v), want %#v (%v)", gi, gerr, wi, werr)
		}
		return ""
	}
	for _, f := range []struct {
		name      string
		got, want any
	}{
		{"Features", got.Features, want.Features},
		{"Labels", got.Labels, want.Labels},
		{"Kind", got.Kind, want.Kind},
		{"Categories", got.Categories, want.Categories},
		{"Columns", got.Columns, want.Columns},
		{"LabelColumns", got.LabelColumns, want.LabelColumns},
		{"Warnings", got.Warnings, want.Warnings},
	} {
		if !reflect.DeepEqual(f.got, f.want) {
			return fmt.Sprintf("%s: got %q, want %q", f.name, f.got, f.want)
		}
	}
	if !sameBits(got.Dense(), want.Dense()) {
		return fmt.Sprintf("X: got %v, want %v", rowsOf(got.Dense()), rowsOf(want.Dense()))
	}
	if (got.Y == nil) != (want.Y == nil) || (got.Y != nil && !sameBits(got.Y, want.Y)) {
		return fmt.Sprintf("Y: got %v, want %v", rowsOf(got.Y), rowsOf(want.Y))
	}
	// Checked last: checkForms expects this difference alone.
	if got.IsSparse() != want.IsSparse() {
		return fmt.Sprintf("sparse: got %v, want %v", got.IsSparse(), want.IsSparse())
	}
	return ""
}

// TestFastPathMatchesPlain checks the CSV fast path against the plain loop
// on inputs that take each of its ways out: slow rows in their place, a
// quote that stops it, a text column met in the middle, a failing reader.
func TestFastPathMatchesPlain(t *testing.T) {
	long := strings.Repeat("1.5,", 300) // a line longer than most chunks
	tests := []struct {
		name string
		in   string
	}{
		{"plain", "a,b,label:y\n1,2,0\n3,4,1\n5,6,0\n"},
		{"spellings", "a,b,label:y\n1e3,-.5,0\n+2.50,1E-2,1\n5.,-0,0\n0.1e+01,00012,1\n"},
		{"strconv's numbers", "a,b,label:y\n9007199254740993,1e23,0\n0.12345678901234567890,5e-324,0\n1e-400,3,1\n"},
		// Go's syntax, which strconv reads and the loader refuses (or
		// takes as text for nominal=onehot), in each place of a row.
		{"Go's syntax", "a,b,label:y\n1,2,0\n0x1p-2,1_000,1\n"},
		{"Go's syntax, first row", "a,b,label:y\n+0x1p3,2,0\n3,4,1\n"},
		{"Go's syntax, last column", "label:y,a,b\n0,1,2\n1,3,1_0.5\n"},
		{"Go's syntax, quoted", "a,b,label:y\n1,2,0\n3,\"0X1P-2\",1\n5,6,0\n"},
		{"Go's syntax, spaced", "a,b,label:y\n1,2,0\n3, 1e1_0 ,1\n5,6,0\n"},
		{"Go's syntax in a numeric run", "a,b,c,d,e,label:y\n1,-2,3.5,4,5,0\n1,-2,0x1p1,4,5,1\n1,-2,3,1_0,5,0\n"},
		{"Go's syntax in labels", "a,label:y\n1,0x0p0\n2,0x1p0\n3,1_0\n"},
		{"Go-like that strconv refuses", "a,b,label:y\n1,2,0\n0x10,1__0,1\n"},
		{"infinite", "a,b,label:y\n1,2,0\n3,1e400,1\n"},
		{"inf", "a,b,label:y\n1,2,0\n3,inf,1\n"},
		{"not a number", "a,b,label:y\n1,2,0\n3,1.2.3,1\n4,5,0\n"},
		{"CRLF", "a,b,label:y\r\n1,2,0\r\n3,4,1\r\n5,6,0\r\n"},
		{"CRLF after spaces", "a,b,label:y\r\n1,2 ,0 \r\n3,4\t,1\t\r\n5,6,0"},
		{"CR inside", "a,b,label:y\n1,2\r,0\n3,4,1\n"},
		{"CR before CRLF", "a,b,label:y\n1,2,0\r\r\n3,4,1\n"},
		{"number last, CRLF", "label:y,a,b\r\n0,1,2\r\n1,3,4 \r\n0,5,x\r\n1,6,7\r\n"},
		{"number last, CR at end", "label:y,a,b\n0,1,2\n1,3,4\r"},
		{"label last, CR at end", "a,b,label:y\n1,2,0\n3,4,1\r"},
		{"blank lines", "a,b,label:y\n\n1,2,0\n \t\n\r\n3,4,1\n\u00a0\n\n5,6,0\n\n"},
		{"only CR after data", "a,b,label:y\n1,2,0\n3,4,1\n\r"},
		{"spaces and tabs", "a,b,label:y\n 1 ,\t2\t, 0 \n3,  4,1\n"},
		{"no final newline", "a,b,label:y\n1,2,0\n3,4,1"},
		{"semicolons", "a;b;label:y\n1;2;0\n3;4;1\n"},
		{"tabs", "a\tb\tlabel:y\n1\t2\t0\n3\t 4\t1\n"},
		{"ragged short", "a,b,label:y\n1,2,0\n3,4\n5,6,1\n"},
		{"ragged long", "a,b,label:y\n1,2,0\n3,4,1,7\n5,6,1\n"},
		{"label first and middle", "label:p,a,label:q,b\n1,1,0,2\n0,3,1,4\n1,5,1,6\n"},
		{"many label values", "a,label:c\n" + manyRows(40, func(i int) string { return fmt.Sprintf("%d,v%d", i, i%13) })},
		{"label values spaced", "a,label:c\n1, x\n2,x \n3,\tx\n4,y\n"},
		{"label yes/no", "a,label:c\n1,yes\n2,No\n3,YES\n4,no\n"},
		{"label missing", "a,label:c\n1,0\n2,?\n3,1\n"},
		{"label empty", "a,label:c\n1,0\n2,\n3,1\n"},
		{"label not UTF-8", "a,label:c\n1,0\n2,\xff\n3,1\n"},
		{"label mixed codes", "a,label:c\n1,0\n2,-1\n3,1\n"},
		{"missing values", "a,b,label:y\n1,2,0\n3,,1\n4,NA,0\n5,?,1\n6,7,0\n8,nan,1\n"},
		{"all missing", "a,label:y\n?,0\nNA,1\n"},
		{"text column", "a,b,label:y\n1,2,0\n3,x,1\n4,5,0\n6,y,1\n7,8,0\n"},
		{"text column, CRLF", "a,b,label:y\r\n1,2,0\r\n3,x,1\r\n4,5,0\r\n6,y,1\r\n"},
		{"text column first row", "a,b,label:y\n1,x,0\n3,4,1\n4,5,0\n"},
		{"identifier", "id,a,label:y\n" + manyRows(150, func(i int) string { return fmt.Sprintf("P%d,%d,%d", i, i, i%2) })},
		{"quote in the middle", "a,b,label:y\n1,2,0\n3,\"4\",1\n5,6,0\n"},
		{"quoted line break", "a,b,label:y\n1,2,0\n\"3\n\",4,1\n5,6,0\n7,8,1\n"},
		{"quoted label", "a,b,label:y\n1,2,0\n3,4,\"1\"\n5,6,0\n"},
		{"junk after a closing quote", "a,b,label:y\n1,2,0\n3,\"4\"x,1\n5,6,0\n"},
		{"quote inside a field", "a,b,label:y\n1,2,0\n3,4,y\"es\n5,6,0\n"},
		{"quote after a tab", "a,b,label:y\n1,2,0\n3,\t\"4\",1\n5,6,0\n"},
		{"quoted empty label", "a,b,label:y\n1,2,0\n3,4,\"\"\n5,6,0\n"},
		{"quoted lines then a line break", "a,b,label:y\n\"1\",2,0\n3,\"4\",1\n5,6,\"0\n\"\n7,8,1\n"},
		{"quoted cells", "a,b,label:y\n\"1\",\" 2 \",\"0\"\n  \"3\"  ,4, \"1\" \n5,\"6\"\t,0\n"},
		{"quoted cells, CRLF", "id,a,label:y\r\n\"p, q\",1,\"0\"\r\n\"r\",2,\"1\" \r\n\"s\",3,\"0\"\r \r\n"},
		{"quoted doubled quote", "id,a,label:y\n\"p \"\"q\"\"\",1,\"0\"\n\"r\",2,\"x\"\"y\"\n\"s\",3,\"0\"\n"},
		{"quoted text in a number column", "a,b,label:y\n1,2,0\n3,\"x\",1\n\"4.5e1\",\"1e400\",0\n"},
		{"quoted missing", "a,b,label:y\n1,2,0\n3,\"\",1\n4,\"NA\",0\n5,6,\"?\"\n"},
		{"quoted CR", "a,b,label:y\n1,2,\"0\r\"\n3,4,1\n"},
		{"quote closed on the next line", "a,b,label:y\n1,2,\"0\n\"\n3,4,1\n"},
		{"unclosed quote", "a,b,label:y\n1,2,0\n3,4,\"1\n5,6,0\n"},
		{"quoted header", "\"a\",\"b\",\"label:y\"\n1,2,0\n3,4,1\n"},
		{"BOM", "\xEF\xBB\xBFa,b,label:y\n1,2,0\n3,4,1\n"},
		{"dropped column", "id,a,label:y\nx\"y,1,0\nq,2,1\n"},
		{"long lines", "label:y," + long + "z\n0," + long + "1\n1," + long + "2\n"},
		{"one row", "a,b,label:y\n1,2,0\n"},
		{"no rows", "a,b,label:y\n\n\n"},
		{"NUL", "a,b,label:y\n1,2,0\n3,\x00,1\n"},
		// A run of numeric columns taken at once, left in its middle by
		// each kind of cell the run does not take.
		{"numeric run broken", "a,b,c,d,e,label:y\n1,-2,3.5,4,5,0\n1,-2, 3,4,5,1\n1,-2,3 ,4,5,0\n1,-2,\"3\",4,5,1\n" +
			"1,-2,1e400,4,5,0\n1,-2,9007199254740993,4,5,1\n1,-2,,4,5,0\n1,-2,NA,4,5,1\n1,-2,3\t,4,5,0\n" +
			"1,-2,3,4\n1,-2,3,4,5,6,0\n-0,+0,-.5,5.,1e5,1\n1,-2,x,4,5,0\n"},
		{"numeric run, a number then not the delimiter", "a,b,c,d,e,label:y\n1,-2,3.5,4,5,0\n1,-2,3;4,5,1\n"},
	}
	optionSets := []dataset.Options{
		{},
		{Missing: dataset.MissingDropRows},
		{Missing: dataset.MissingMean},
		{Nominal: dataset.NominalOneHot},
		{Nominal: dataset.NominalDrop, Missing: dataset.MissingMean},
		{Kind: dataset.MultiLabel},
		{Drop: []string{"id"}},
		{LabelCount: -1},
		dataset.OnlyOptions([]string{"a"}),
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for _, opts := range optionSets {
				checkSameLoad(t, []byte(tc.in), opts, false, fastChunks...)
				checkSameLoad(t, []byte(tc.in), opts, true, fastChunks...)
			}
		})
	}
}

func manyRows(n int, row func(i int) string) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(row(i))
		b.WriteByte('\n')
	}
	return b.String()
}

// TestFastPathMatchesPlainGenerated checks the fast path against the plain
// loop on generated files of a few thousand rows, past the matrix's sizing
// and over many chunks, with a rare odd row among them.
func TestFastPathMatchesPlainGenerated(t *testing.T) {
	odd := []string{"", "?", "NA", "x", "1e400", "9007199254740993", "\"7\"", "1,2", " 3 ", "1_000", "0x1p-2"}
	for seed := range uint64(12) {
		rng := rand.New(rand.NewPCG(seed, 2))
		var b bytes.Buffer
		b.WriteString("a,b,c,label:p,label:q\n")
		oddRate := []int{0, 50, 500, 3000}[seed%4]
		for i := range 3000 {
			for range 3 {
				if oddRate > 0 && rng.IntN(oddRate) == 0 {
					b.WriteString(odd[rng.IntN(len(odd))])
				} else {
					b.WriteString(strconv.FormatFloat(rng.NormFloat64()*1000, 'g', 1+rng.IntN(17), 64))
				}
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%d,%d", rng.IntN(2), rng.IntN(2))
			if i%100 == 99 {
				b.WriteString("\r")
			}
			b.WriteByte('\n')
		}
		for _, opts := range []dataset.Options{{}, {Missing: dataset.MissingMean, Nominal: dataset.NominalOneHot}, {Missing: dataset.MissingDropRows}} {
			t.Run(fmt.Sprintf("seed %d/%+v", seed, opts), func(t *testing.T) {
				checkSameLoad(t, b.Bytes(), opts, false, 100, 4096, 0)
				checkSameLoad(t, b.Bytes(), opts, true, 100, 4096, 0)
			})
		}
	}
}

// TestFastPathRealDatasets checks the fast path against the plain loop on
// every CSV of the shared data sets.
func TestFastPathRealDatasets(t *testing.T) {
	skipWithoutDatasets(t)
	paths, err := filepath.Glob(filepath.Join(datasetsDir, "*", "*.csv"))
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var opts dataset.Options
			if strings.HasPrefix(filepath.Base(path), "genbase") {
				opts = genbaseOptions
			}
			checkSameLoad(t, data, opts, false, 4096, 0)
		})
	}
}

// FuzzLoadCSVFastPath checks the fast path against the plain loop on
// arbitrary input, options (see fuzzOptions) and chunk sizes.
func FuzzLoadCSVFastPath(f *testing.F) {
	for _, s := range []string{
		"a,b,label:y\n1,2,0\n3,4,1\n",
		"a;b;label:y\r\n1;?;yes\r\n3;4;no\r\n",
		"a,b,label:y\n1.5e3,-0,0\n\"3\n\",4,1\n5,6,0\n",
		"id\ta\tlabel:y\tlabel:z\nP1\t1e3\t-1\t1\nP2\tNaN\t1\t-1\nP3\t\t1\t1\n",
		"a,b,label:y\n1,x,0\n3,4,1\n4,5,0\n",
		"a,label:y\n9007199254740993,0\n1e23,1\n \t\n0x1p-2,0\n",
		"id,a,label:y\r\n\"p, q\", \"1\" ,\"0\"\r\n\"r\"\"\",2,\"1\"\r\n",
		"a,b,label:y\n1,1_000,0\n\"0x1p3\",-0X1P-2,1\n",
	} {
		for _, mode := range []byte{0, 0x0a, 0x16, 0x40, 0x80} {
			f.Add([]byte(s), mode, uint16(3))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, mode byte, chunk uint16) {
		opts, failRead := fuzzOptions(mode, dataset.FormatCSV)
		checkSameLoad(t, data, opts, failRead, 1+int(chunk%256))
	})
}

// TestFastPathBlankLinesBounded checks that a chunk of many lines that are
// not rows (blank ones here) under a wide header does not make the fast
// path reserve a block row for each line.
func TestFastPathBlankLinesBounded(t *testing.T) {
	const cols = 2000
	var b strings.Builder
	for j := range cols {
		fmt.Fprintf(&b, "f%d,", j)
	}
	b.WriteString("label:y\n")
	b.WriteString(strings.Repeat("\n", 1<<20))
	row := strings.Repeat("1,", cols)
	b.WriteString(row + "0\n" + row + "1\n")
	in := b.String()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	ds, err := dataset.Load(strings.NewReader(in), dataset.Options{})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatalf("Load: got error %q, want none", err)
	}
	if ds.Rows() != 2 {
		t.Fatalf("got %d rows, want 2", ds.Rows())
	}
	// A block row per line would be 2000 × 8 B for each of 2^20 lines.
	if got := after.TotalAlloc - before.TotalAlloc; got > 64<<20 {
		t.Errorf("allocated %d MB, want at most 64", got>>20)
	}
}
