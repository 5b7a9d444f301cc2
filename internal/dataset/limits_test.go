package dataset_test

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"mldr/internal/dataset"
)

// TestLoadLongInput checks that absurdly long cells, names, lines and rows
// are refused with an *InputError naming the line and column, on the CSV
// fast path and the plain loop alike, and in ARFF.
func TestLoadLongInput(t *testing.T) {
	long := strings.Repeat("x", dataset.MaxCell+1)
	digits := strings.Repeat("1", dataset.MaxCell+1)
	// A quoted cell with a line break every 1000 bytes, never closed.
	var multi strings.Builder
	multi.WriteString("a,b,label:y\n1,2,0\n3,\"")
	for multi.Len() < 2*dataset.MaxCell {
		multi.WriteString(strings.Repeat("q", 999) + "\n")
	}
	cellMsg := func(n int) string { return fmt.Sprintf("a cell of more than 64 KiB (%d bytes)", n) }
	tests := []refusal{
		{"long text cell", "a,b,label:y\n1,2,0\n3," + long + ",1\n", dataset.Options{},
			inputErr{Line: 3, Column: "b", Msg: cellMsg(len(long))}},
		{"long number", "a,b,label:y\n1,2,0\n3," + digits + ",1\n", dataset.Options{},
			inputErr{Line: 3, Column: "b", Msg: cellMsg(len(digits))}},
		{"long quoted cell", "a,b,label:y\n1,2,0\n3,\"" + long + "\",1\n", dataset.Options{},
			inputErr{Line: 3, Column: "b", Msg: cellMsg(len(long))}},
		{"long label", "a,b,label:y\n1,2,0\n3,4," + long + "\n", dataset.Options{},
			inputErr{Line: 3, Column: "label:y", Msg: cellMsg(len(long))}},
		{"long dropped cell", "a,b,label:y\n1,2,0\n3," + long + ",1\n", dataset.Options{Drop: []string{"b"}},
			inputErr{Line: 3, Column: "b", Msg: cellMsg(len(long))}},
		{"quoted cell over many lines", multi.String(), dataset.Options{},
			inputErr{Line: 3, Column: "b", Msg: "a cell of more than 64 KiB"}},
		{"long column name", "a," + long + ",label:y\n1,2,0\n3,4,1\n", dataset.Options{},
			inputErr{Line: 1, Column: "#2", Msg: cellMsg(len(long))}},
		{"many fields in a row", "a,b,label:y\n1,2,0\n" + strings.Repeat("1,", 1_000_000) + "1\n", dataset.Options{},
			inputErr{Line: 3, Msg: "expected 3 fields (as in the header), found 1000001"}},
		{"many quoted fields in a row", "a,b,label:y\n1,2,0\n\"1\"" + strings.Repeat(",1", 1_000_000) + "\n", dataset.Options{},
			inputErr{Line: 3, Msg: "expected 3 fields (as in the header), found more"}},
		{"too many columns", strings.Repeat("x,", dataset.MaxColumns) + "label:y\n1,0\n", dataset.Options{},
			inputErr{Line: 1, Msg: fmt.Sprintf("the file has %d columns, more than the 2000000 the loader takes", dataset.MaxColumns+1)}},
		{"ARFF long cell", "@relation r\n@attribute a numeric\n@attribute label:y {0,1}\n@data\n1,0\n" + long + ",1\n", dataset.Options{},
			inputErr{Line: 6, Column: "a", Msg: cellMsg(len(long))}},
		{"ARFF long sparse cell", "@relation r\n@attribute a numeric\n@attribute label:y {0,1}\n@data\n1,0\n{0 " + long + "}\n", dataset.Options{},
			inputErr{Line: 6, Column: "a", Msg: cellMsg(len(long))}},
		{"ARFF long attribute name", "@relation r\n@attribute " + long + " numeric\n@attribute label:y {0,1}\n@data\n1,0\n2,1\n", dataset.Options{},
			inputErr{Line: 2, Column: "#1", Msg: cellMsg(len(long))}},
		{"ARFF many values in a row", "@relation r\n@attribute a numeric\n@attribute label:y {0,1}\n@data\n1,0\n" + strings.Repeat("1,", 1_000_000) + "1\n", dataset.Options{},
			inputErr{Line: 6, Msg: "more than 2 values"}},
	}
	checkRefusals(t, tests)
	for _, tc := range tests {
		t.Run("plain loop/"+tc.name, func(t *testing.T) {
			_, err := dataset.LoadChunked(strings.NewReader(tc.in), tc.opts, -1)
			checkInputError(t, err, tc.want)
		})
	}
}

// endless is a reader of a CSV header followed by one line that never
// ends; it counts the bytes read.
type endless struct {
	head []byte
	fill byte
	read int64
}

func (e *endless) Read(p []byte) (int, error) {
	n := copy(p, e.head)
	e.head = e.head[n:]
	for i := n; i < len(p); i++ {
		p[i] = e.fill
	}
	e.read += int64(len(p))
	return len(p), nil
}

// TestLoadLongLine checks that a line longer than MaxLine is refused once
// MaxLine bytes of it are read, not buffered whole: the reader is never
// read much beyond MaxLine.
func TestLoadLongLine(t *testing.T) {
	for _, tc := range []struct {
		name  string
		head  string
		fill  byte
		chunk int
		want  inputErr
	}{
		{"header", "a,", 'b', 0, inputErr{Line: 1, Msg: "the line is longer than 64 MiB"}},
		{"data row, fast path", "a,label:y\n1,0\n2,", '1', 0, inputErr{Line: 3, Msg: "the line is longer than 64 MiB"}},
		{"data row, plain loop", "a,label:y\n1,0\n2,", '1', -1, inputErr{Line: 3, Msg: "the line is longer than 64 MiB"}},
		{"quoted data row", "a,label:y\n1,0\n\"2\",", '1', 0, inputErr{Line: 3, Msg: "the line is longer than 64 MiB"}},
		{"ARFF data row", "@relation r\n@attribute a numeric\n@attribute label:y {0,1}\n@data\n1,0\n", '1', 0, inputErr{Line: 6, Msg: "the line is longer than 64 MiB"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &endless{head: []byte(tc.head), fill: tc.fill}
			_, err := dataset.LoadChunked(r, dataset.Options{}, tc.chunk)
			checkInputError(t, err, tc.want)
			if limit := int64(dataset.MaxLine + 8<<20); r.read > limit {
				t.Errorf("read %d bytes before refusing, want at most %d", r.read, limit)
			}
		})
	}
}

// TestMessagesCutCells checks that a refused cell or a column name is
// quoted in messages cut to MaxQuoted runes.
func TestMessagesCutCells(t *testing.T) {
	cell := strings.Repeat("é", 200) // 2 bytes a rune
	name := strings.Repeat("n", 100)
	tests := []struct {
		name, in string
		want     string
	}{
		{"text in a feature column", "a,b,label:y\n1,2,0\n3," + cell + ",1\n",
			`line 3, column "b": "` + strings.Repeat("é", 57) + `…" is not a number`},
		{"long column name", "a," + name + ",label:y\n1,2,0\n3,x,1\n",
			`line 3, column "` + strings.Repeat("n", 57) + `…": "x" is not a number`},
		{"infinite", "a,b,label:y\n1,2,0\n3,1" + strings.Repeat("0", 400) + ",1\n",
			`line 3, column "b": "1` + strings.Repeat("0", 56) + `…" is infinite or out of range`},
		{"ARFF header", "@relation r\n" + strings.Repeat("z", 300) + "\n",
			`line 2: unexpected "` + strings.Repeat("z", 57) + `…" in the ARFF header`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := load(tc.in, dataset.Options{})
			if err == nil {
				t.Fatalf("got no error, want %q", tc.want)
			}
			if !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("got %q, want it to start with %q", err, tc.want)
			}
			if n := utf8.RuneCountInString(err.Error()); n > 300 {
				t.Errorf("got a message of %d runes, want the cell cut", n)
			}
		})
	}
}

// TestCut checks Cut at the edges of MaxQuoted.
func TestCut(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{strings.Repeat("a", 60), strings.Repeat("a", 60)},
		{strings.Repeat("a", 61), strings.Repeat("a", 57) + "…"},
		{strings.Repeat("ü", 61), strings.Repeat("ü", 57) + "…"},
		{strings.Repeat("\xff", 61), strings.Repeat("\xff", 57) + "…"},
	} {
		if got := dataset.Cut(tc.in); got != tc.want {
			t.Errorf("Cut(%q): got %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestLoadMillionColumns checks that the limits leave room for wide data: a
// CSV with 1 000 000 feature columns loads.
func TestLoadMillionColumns(t *testing.T) {
	if testing.Short() {
		t.Skip("a 40 MB CSV")
	}
	const d = 1_000_000
	var b strings.Builder
	for j := range d {
		fmt.Fprintf(&b, "feature_%07d,", j)
	}
	b.WriteString("label:y\n")
	for i := range 2 {
		for range d {
			b.WriteString("-0.123456789012345,")
		}
		fmt.Fprintf(&b, "%d\n", i)
	}
	ds, err := dataset.Load(io.NopCloser(strings.NewReader(b.String())), dataset.Options{})
	if err != nil {
		t.Fatalf("Load: got %v, want a data set", err)
	}
	if got := ds.Features.Len(); got != d {
		t.Errorf("got %d features, want %d", got, d)
	}
}
