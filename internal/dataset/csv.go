package dataset

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// lineReader reads physical lines, counting them, without copying unless a
// line is longer than the buffer.
type lineReader struct {
	br   *bufio.Reader
	line int   // number of the last line returned
	pos  int64 // bytes consumed
	long []byte
}

// readLine returns the next line without its "\n" or "\r\n". The slice is
// valid until the next call. At the end it returns io.EOF.
func (r *lineReader) readLine() ([]byte, error) {
	line, err := r.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		r.long = append(r.long[:0], line...)
		for err == bufio.ErrBufferFull {
			if len(r.long) > MaxLine {
				return nil, longLineError(r.line + 1)
			}
			line, err = r.br.ReadSlice('\n')
			r.long = append(r.long, line...)
		}
		line = r.long
	}
	if len(line) > MaxLine+2 { // "\r\n"
		return nil, longLineError(r.line + 1)
	}
	if err != nil && err != io.EOF {
		return nil, fmt.Errorf("reading line %d: %w", r.line+1, err)
	}
	if len(line) == 0 && err == io.EOF {
		return nil, io.EOF
	}
	r.line++
	r.pos += int64(len(line))
	if n := len(line); n > 0 && line[n-1] == '\n' {
		line = line[:n-1]
	}
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, nil
}

// csvReader splits delimited records: RFC 4180 quoting ("" inside a quoted
// field, line breaks inside quotes), blank lines skipped.
type csvReader struct {
	lineReader
	delim byte
	names []string // header names, for error messages
	// maxFields is the most fields a record may have: MaxColumns for the
	// header (or when 0), then the header's.
	maxFields int
	fields    [][]byte
	buf       []byte // unquoted field contents on the slow path
	ends      []int
}

func (r *csvReader) column(i int) string {
	if i < len(r.names) {
		return r.names[i]
	}
	return fmt.Sprintf("#%d", i+1)
}

// next returns the fields of the next non-blank record and the line it
// starts on. The fields are valid until the next call.
func (r *csvReader) next() (int, [][]byte, error) {
	for {
		line, err := r.readLine()
		if err != nil {
			return 0, nil, err
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		start := r.line
		f, err := r.split(line, start)
		return start, f, err
	}
}

// split splits the record that starts with line, on line start: by
// splitFast when it holds no quote, else by splitQuoted.
func (r *csvReader) split(line []byte, start int) ([][]byte, error) {
	if bytes.IndexByte(line, '"') < 0 {
		return r.splitFast(line, start)
	}
	return r.splitQuoted(line, start)
}

// fieldLimit is the most fields a record may have.
func (r *csvReader) fieldLimit() int {
	if r.maxFields == 0 {
		return MaxColumns
	}
	return r.maxFields
}

// tooMany refuses a record of n fields, more than r.maxFields; more says n
// is only a lower bound.
func (r *csvReader) tooMany(line, n int, more bool) *InputError {
	if len(r.names) == 0 {
		return manyColumnsError(line, n)
	}
	if more {
		return errorf(line, "", "expected %d fields (as in the header), found more", len(r.names))
	}
	return errorf(line, "", "expected %d fields (as in the header), found %d", len(r.names), n)
}

func (r *csvReader) splitFast(line []byte, start int) ([][]byte, error) {
	if n := bytes.Count(line, []byte{r.delim}) + 1; n > r.fieldLimit() {
		return nil, r.tooMany(start, n, false)
	}
	f := r.fields[:0]
	for {
		k := bytes.IndexByte(line, r.delim)
		if k < 0 {
			f = append(f, line)
			break
		}
		f = append(f, line[:k])
		line = line[k+1:]
	}
	r.fields = f
	return f, nil
}

// splitQuoted is the slow path for lines with quotes; it may read more lines
// when a quoted field holds a line break.
func (r *csvReader) splitQuoted(line []byte, start int) ([][]byte, error) {
	r.buf = r.buf[:0]
	r.ends = r.ends[:0]
	i := 0
	for {
		j := i
		for j < len(line) && line[j] == ' ' {
			j++
		}
		if j < len(line) && line[j] == '"' {
			j++
			for {
				k := bytes.IndexByte(line[j:], '"')
				if k < 0 {
					r.buf = append(r.buf, line[j:]...)
					r.buf = append(r.buf, '\n')
					if n := len(r.buf) - r.lastEnd(); n > MaxCell {
						return nil, longCellError(start, r.column(len(r.ends)), n)
					}
					if len(r.buf) > MaxLine {
						return nil, longLineError(start)
					}
					next, err := r.readLine()
					if err == io.EOF {
						return nil, errorf(start, r.column(len(r.ends)), "a quoted field opened on this line is never closed")
					}
					if err != nil {
						return nil, err
					}
					line, j = next, 0
					continue
				}
				r.buf = append(r.buf, line[j:j+k]...)
				j += k + 1
				if j < len(line) && line[j] == '"' {
					r.buf = append(r.buf, '"')
					j++
					continue
				}
				break
			}
			for j < len(line) && line[j] == ' ' {
				j++
			}
			r.ends = append(r.ends, len(r.buf))
			if len(r.ends) > r.fieldLimit() {
				return nil, r.tooMany(start, len(r.ends), true)
			}
			if j == len(line) {
				break
			}
			if line[j] != r.delim {
				return nil, errorf(r.line, r.column(len(r.ends)-1), "unexpected %q after the closing quote of a quoted field (a quote inside a quoted field is written \"\")", line[j])
			}
			i = j + 1
			continue
		}
		k := bytes.IndexByte(line[i:], r.delim)
		if k < 0 {
			r.buf = append(r.buf, line[i:]...)
			r.ends = append(r.ends, len(r.buf))
			break
		}
		r.buf = append(r.buf, line[i:i+k]...)
		r.ends = append(r.ends, len(r.buf))
		if len(r.ends) > r.fieldLimit() {
			return nil, r.tooMany(start, len(r.ends), true)
		}
		i += k + 1
	}
	if len(r.ends) > r.fieldLimit() {
		return nil, r.tooMany(start, len(r.ends), false)
	}
	f := r.fields[:0]
	prev := 0
	for _, e := range r.ends {
		f = append(f, r.buf[prev:e])
		prev = e
	}
	r.fields = f
	return f, nil
}

// lastEnd is where the field splitQuoted is reading starts in r.buf.
func (r *csvReader) lastEnd() int {
	if len(r.ends) == 0 {
		return 0
	}
	return r.ends[len(r.ends)-1]
}

// closesQuotes reports whether splitQuoted would split line without
// reading another line: whether every quoted field opened on it is closed
// on it. It follows splitQuoted step by step.
func closesQuotes(line []byte, delim byte) bool {
	i := 0
	for {
		j := i
		for j < len(line) && line[j] == ' ' {
			j++
		}
		if j < len(line) && line[j] == '"' {
			j++
			for {
				k := bytes.IndexByte(line[j:], '"')
				if k < 0 {
					return false
				}
				j += k + 1
				if j < len(line) && line[j] == '"' {
					j++
					continue
				}
				break
			}
			for j < len(line) && line[j] == ' ' {
				j++
			}
			if j == len(line) || line[j] != delim {
				return true // the end, or splitQuoted's error on this line
			}
			i = j + 1
			continue
		}
		k := bytes.IndexByte(line[i:], delim)
		if k < 0 {
			return true
		}
		i += k + 1
	}
}

// detectDelimiter picks comma, semicolon or tab: whichever occurs most often
// outside quotes in the header line (comma on a tie).
func detectDelimiter(header []byte) byte {
	var n [3]int
	quoted := false
	for _, c := range header {
		switch c {
		case '"':
			quoted = !quoted
		case ',':
			if !quoted {
				n[0]++
			}
		case ';':
			if !quoted {
				n[1]++
			}
		case '\t':
			if !quoted {
				n[2]++
			}
		}
	}
	best, delim := n[0], byte(',')
	if n[1] > best {
		best, delim = n[1], ';'
	}
	if n[2] > best {
		delim = '\t'
	}
	return delim
}

// loadCSV reads delimited text with a header line.
func loadCSV(br *bufio.Reader, o Options, size int64) (*Dataset, error) {
	r := &csvReader{lineReader: lineReader{br: br}}
	var header []byte
	for {
		line, err := r.readLine()
		if errors.Is(err, io.EOF) {
			return nil, &InputError{Msg: "the file is empty"}
		}
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(line)) > 0 {
			header = line
			break
		}
	}
	if bytes.IndexByte(header, '\r') >= 0 {
		return nil, &InputError{Line: r.line, Msg: "the file uses old Mac line endings (CR only); save it with LF or CRLF line endings"}
	}
	r.delim = detectDelimiter(header)
	hline := r.line
	var fields [][]byte
	var err error
	if fields, err = r.split(header, hline); err != nil {
		return nil, err
	}
	cols := make([]column, len(fields))
	for i, f := range fields {
		name := string(bytes.TrimSpace(f))
		if !validText(name) {
			return nil, &InputError{Line: hline, Msg: "the header is not valid UTF-8 text; save the file as UTF-8"}
		}
		cols[i] = column{name: name, line: hline}
		r.names = append(r.names, name)
	}
	r.maxFields = len(r.names)
	b := newBuilder(o)
	if err := b.setColumns(cols, ""); err != nil {
		return nil, err
	}
	b.startSizing(size, r.pos)
	if f := newFastCSV(b, r.delim, o.chunk); f != nil {
		if err := f.run(br, r); err != nil {
			return nil, err
		}
	}
	for {
		b.sizeFrom(r.pos)
		if err := b.admit(r.pos); err != nil {
			return nil, err
		}
		line, fields, err := r.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if err := b.addRow(line, fields); err != nil {
			return nil, err
		}
	}
	return b.finish()
}
