package dataset

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"unicode/utf8"

	"gonum.org/v1/gonum/mat"
)

// readBufferSize is the loader's read buffer; lines longer than it still
// work, at the cost of a copy.
const readBufferSize = 1 << 20

// Limits on what one line may hold. No real data set comes near them, but
// they bound the memory a hostile file can make the loader take before it
// is refused: a line is never buffered beyond MaxLine, nor split into more
// than MaxColumns fields (a data row into more than the header's).
const (
	// MaxCell is the longest cell or column name, in bytes: 64 KiB.
	MaxCell = 64 << 10
	// MaxColumns is the most columns a file may have: 2 000 000.
	MaxColumns = 2_000_000
	// MaxLine is the longest line (or quoted record), in bytes: 64 MiB,
	// 32 bytes a cell at MaxColumns columns (a header of 1 000 000 names
	// like "feature_1000000" is 16 MB).
	MaxLine = 64 << 20
)

// longLineError refuses a line longer than MaxLine.
func longLineError(line int) *InputError {
	return &InputError{Line: line, Msg: fmt.Sprintf("the line is longer than %d MiB, more than any data set needs; "+
		"check that the file is CSV or ARFF text with a line break after each row", MaxLine>>20)}
}

// longCellError refuses a cell longer than MaxCell.
func longCellError(line int, column string, n int) *InputError {
	return errorf(line, column, "a cell of more than %d KiB (%d bytes), more than any value or name needs; "+
		"check the file's delimiters and quotes", MaxCell>>10, n)
}

// manyColumnsError refuses a header of more than MaxColumns columns.
func manyColumnsError(line, n int) *InputError {
	return &InputError{Line: line, Msg: fmt.Sprintf("the file has %d columns, more than the %d the loader takes", n, MaxColumns)}
}

// Load reads a data set from r: CSV (header line; comma, semicolon or tab;
// quoted fields; UTF-8 BOM; CRLF) or ARFF (dense or sparse rows), as
// opts.Format says or as detected from the first line. It reads r once,
// streaming.
//
// Refused input gives an *InputError naming the line and column; a failure
// of r itself is returned wrapped.
func Load(r io.Reader, opts Options) (*Dataset, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	size := remaining(r) // before buffering moves the offset
	br := bufio.NewReaderSize(r, readBufferSize)
	head, err := br.Peek(8192)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return nil, fmt.Errorf("reading the file: %w", err)
	}
	if len(bytes.TrimSpace(head)) == 0 || bytes.Equal(bytes.TrimSpace(head), utf8BOM) {
		return nil, &InputError{Msg: "the file is empty"}
	}
	if err := sniffBinary(head); err != nil {
		return nil, err
	}
	if bytes.HasPrefix(head, utf8BOM) {
		_, _ = br.Discard(len(utf8BOM))
		head = head[len(utf8BOM):]
	}
	format := opts.Format
	if format == FormatAuto {
		format = detectFormat(head)
		if format == FormatCSV && labelsGoOn(head) {
			// A first line of libsvm labels longer than the head (a row
			// of thousands of labels): judge it on more of it, and on a
			// whole buffer of labels, call it libsvm.
			if more, _ := br.Peek(readBufferSize); len(more) > len(head) {
				if format = detectFormat(more); format == FormatCSV && labelsGoOn(more) && len(more) == readBufferSize {
					format = FormatLibSVM
				}
			}
		}
	}
	switch format {
	case FormatARFF:
		return loadARFF(br, opts, size)
	case FormatLibSVM:
		return loadSVM(br, opts, size)
	}
	return loadCSV(br, opts, size)
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// detectFormat says ARFF when the first line that is not blank is an ARFF
// keyword (@relation, @attribute, @data) or a '%' comment, libsvm when it
// is an "N D q" header or a libsvm row (looksLikeSVM), CSV otherwise (a
// CSV header may start with '@'; one of numbers alone would be a single
// column, which Load refuses anyway).
func detectFormat(head []byte) Format {
	lines := bytes.Split(head, []byte("\n"))
	for k, line := range lines {
		if k == len(lines)-1 {
			// The line may go on past head: judge its whole fields.
			if i := bytes.LastIndexAny(line, " \t"); i > 0 {
				line = line[:i]
			}
		}
		if looksLikeSVM(bytes.TrimRight(line, "\r")) {
			return FormatLibSVM
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if line[0] == '%' {
			return FormatARFF
		}
		for _, kw := range []string{"@relation", "@attribute", "@data"} {
			if _, ok := keyword(line, kw); ok {
				return FormatARFF
			}
		}
		return FormatCSV
	}
	return FormatCSV
}

// labelsGoOn reports whether the first line that is not blank goes on past
// head and is, so far, a libsvm line's list of labels: numbers separated
// by commas, with no space, tab or colon yet.
func labelsGoOn(head []byte) bool {
	head = bytes.TrimLeft(head, " \t\r\n")
	if len(head) == 0 || bytes.ContainsAny(head, "\n \t:") {
		return false
	}
	for l := range bytes.SplitSeq(bytes.TrimSuffix(head, []byte(",")), []byte(",")) {
		if len(l) > 0 && !numberish(l) {
			return false
		}
	}
	return true
}

// sniffBinary refuses files that are not text, naming common formats.
func sniffBinary(head []byte) error {
	known := []struct {
		magic, what string
	}{
		{"PK\x03\x04", "a ZIP archive (an Excel .xlsx file is one): save the sheet as CSV"},
		{"\x1f\x8b", "gzip-compressed: decompress it first"},
		{"%PDF", "a PDF document"},
		{"\x89PNG", "a PNG image"},
		{"\xff\xd8\xff", "a JPEG image"},
		{"MATLAB 5.0 MAT-file", "a MATLAB .mat file: save the matrices as CSV"},
		{"\x89HDF", "an HDF5 file (MATLAB v7.3 .mat files are): save the matrices as CSV"},
		{"\x93NUMPY", "a NumPy .npy file: save it as CSV"},
		{"\xd0\xcf\x11\xe0", "an old Excel/Office file: save the sheet as CSV"},
		{"BZh", "bzip2-compressed: decompress it first"},
		{"\xfd7zXZ", "xz-compressed: decompress it first"},
	}
	for _, k := range known {
		if bytes.HasPrefix(head, []byte(k.magic)) {
			return &InputError{Line: 1, Msg: "this is not a CSV, ARFF or libsvm text file: it is " + k.what}
		}
	}
	if bytes.HasPrefix(head, []byte{0xFF, 0xFE}) || bytes.HasPrefix(head, []byte{0xFE, 0xFF}) {
		return &InputError{Line: 1, Msg: "the file is UTF-16 text: save it as UTF-8"}
	}
	if i := bytes.IndexByte(head, 0); i >= 0 {
		return &InputError{Line: 1 + bytes.Count(head[:i], []byte("\n")),
			Msg: "this is not a CSV, ARFF or libsvm text file: it holds binary data (a NUL byte)"}
	}
	return nil
}

func validText(s string) bool { return utf8.ValidString(s) }

// remaining tells how many bytes r holds from its current position, when
// it can say (a file, or a bytes or strings reader), and -1 otherwise. The
// loader sizes the matrix from it.
func remaining(r io.Reader) int64 {
	switch v := r.(type) {
	case interface{ Len() int }:
		return int64(v.Len())
	case interface {
		Stat() (fs.FileInfo, error)
		io.Seeker
	}:
		st, err := v.Stat()
		if err != nil || !st.Mode().IsRegular() {
			return -1
		}
		off, err := v.Seek(0, io.SeekCurrent)
		if err != nil {
			return -1
		}
		return st.Size() - off
	}
	return -1
}

// LoadFeatures reads the named feature columns of a CSV, ARFF or libsvm
// file, in the order of names, leaving every other column (labels among
// them) out: new rows to project with a fitted model. One row is enough.
// Cells are checked as Load checks them; a missing column or a refused
// cell gives an *InputError. admit, if not nil, admits the memory the
// reading will hold, as Options.WithMemory's (the rows are held dense,
// len(names) values a row, whatever the file holds).
func LoadFeatures(r io.Reader, names []string, admit func(bytes, rows int64) error) (*mat.Dense, error) {
	if len(names) == 0 {
		return nil, &InputError{Field: "file", Msg: "no feature column to read"}
	}
	opts := Options{only: names}.WithMemory(admit)
	ds, err := Load(r, opts)
	if err != nil {
		return nil, err
	}
	// Reorder the columns from the file's order to names': a second
	// matrix of the same size.
	n := ds.Rows()
	if err := opts.need(2*8*int64(n)*int64(len(names)), int64(n)); err != nil {
		return nil, err
	}
	x := ds.Dense()
	pos := ds.Features.Lookup()
	out := mat.NewDense(n, len(names), nil)
	for k, name := range names {
		out.SetCol(k, mat.Col(nil, pos(name), x))
	}
	return out, nil
}
