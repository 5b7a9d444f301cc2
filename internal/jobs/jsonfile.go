package jobs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/export"
	"mldr/internal/store"
)

// writeJSON writes v as the staged result file rel, indented by
// writeIndented.
func writeJSON(staged *store.StagedResults, rel string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return staged.WriteFile(rel, func(w io.Writer) error { return writeIndented(w, b) })
}

// writeJSONMatrix writes v as writeJSON does, with m as the value of its
// field key, which v must leave nil (marshalled as `"key":null`): the
// rest of v is marshalled at once, m a row at a time, so that writing a
// wide projection holds one row's encoding instead of the whole matrix's
// (a 203 882 × 100 projection's was some 5 GB). The bytes are writeJSON's
// with v's field holding m's rows (TestWriteJSONMatrixIsWriteJSON).
func writeJSONMatrix(staged *store.StagedResults, rel string, v any, key string, m mat.Matrix) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	field := []byte(`"` + key + `":null`)
	at := bytes.LastIndex(b, field)
	if at < 0 {
		return fmt.Errorf("writing %s: its field %q is not null", rel, key)
	}
	return staged.WriteFile(rel, func(w io.Writer) error { return streamMatrix(w, b, at+len(field)-len("null"), m) })
}

// streamMatrix writes src, compact JSON whose bytes at [at, at+4) are the
// null standing for m, indented as writeIndented does, with m's rows in
// place of the null. Each row reaches the indenter whole, so that it sees
// a flat array, as it does in a marshalled matrix.
func streamMatrix(w io.Writer, src []byte, at int, m mat.Matrix) error {
	ind := newIndenter(w, len(src))
	if err := ind.add(src[:at]); err != nil {
		return err
	}
	r, c := m.Dims()
	// The rows are marshalled a chunk at a time on every core
	// (export.InOrder); the indenter takes the chunks in order.
	format := func(lo, hi int, dst []byte) ([]byte, error) {
		row := make([]float64, c)
		for i := lo; i < hi; i++ {
			for j := range row {
				row[j] = m.At(i, j)
			}
			enc, err := json.Marshal(row)
			if err != nil {
				return nil, err
			}
			if i == 0 {
				dst = append(dst, '[')
			} else {
				dst = append(dst, ',')
			}
			dst = append(dst, enc...)
		}
		return dst, nil
	}
	if err := export.InOrder(r, jsonChunk, format, ind.add); err != nil {
		return err
	}
	if r == 0 {
		if err := ind.add([]byte("[]")); err != nil {
			return err
		}
	} else if err := ind.add([]byte("]")); err != nil {
		return err
	}
	if err := ind.add(src[at+len("null"):]); err != nil {
		return err
	}
	return ind.end()
}

// jsonChunk is how many rows of a matrix streamMatrix marshals on one
// goroutine at a time.
const jsonChunk = 512

// writeIndented writes src, JSON as json.Marshal writes it (no white
// space outside strings), indented as json.Indent with two spaces indents
// it, except that an array holding no array or object (a projection's
// row, the eigenvalues, a list of names) stays on one line as it is. It
// ends with a newline, as json.Encoder's output does. A matrix is so one
// line a row, not one a number: a quarter of the bytes, and written in a
// quarter of the time of json.Encoder.SetIndent.
func writeIndented(w io.Writer, src []byte) error {
	ind := newIndenter(w, len(src))
	if err := ind.add(src); err != nil {
		return err
	}
	return ind.end()
}

// indenter is writeIndented's state, so that the JSON may come in pieces:
// each piece must hold whole strings, and whole arrays that hold no array
// or object (an empty array's brackets in one piece too).
type indenter struct {
	w     io.Writer
	dst   []byte
	depth int
}

// indentFlushAt is how many bytes the indenter gathers before it writes.
const indentFlushAt = 32 << 10

func newIndenter(w io.Writer, size int) *indenter {
	return &indenter{w: w, dst: make([]byte, 0, min(size+size/4, 2*indentFlushAt)+256)}
}

func (ind *indenter) newline() {
	ind.dst = append(ind.dst, '\n')
	for range ind.depth {
		ind.dst = append(ind.dst, ' ', ' ')
	}
}

// add indents the next piece of the JSON.
func (ind *indenter) add(src []byte) error {
	for i := 0; i < len(src); i++ {
		if len(ind.dst) >= indentFlushAt {
			if _, err := ind.w.Write(ind.dst); err != nil {
				return err
			}
			ind.dst = ind.dst[:0]
		}
		switch c := src[i]; c {
		case '"':
			end := stringEnd(src, i)
			ind.dst = append(ind.dst, src[i:end]...)
			i = end - 1
		case '[', '{':
			if i+1 < len(src) && (src[i+1] == ']' || src[i+1] == '}') { // empty
				ind.dst = append(ind.dst, c, src[i+1])
				i++
				continue
			}
			if c == '[' {
				if end, flat := flatArray(src, i); flat {
					ind.dst = append(ind.dst, src[i:end]...)
					i = end - 1
					continue
				}
			}
			ind.dst = append(ind.dst, c)
			ind.depth++
			ind.newline()
		case ']', '}':
			ind.depth--
			ind.newline()
			ind.dst = append(ind.dst, c)
		case ',':
			ind.dst = append(ind.dst, ',')
			ind.newline()
		case ':':
			ind.dst = append(ind.dst, ':', ' ')
		default:
			ind.dst = append(ind.dst, c)
		}
	}
	return nil
}

// end writes the final newline and what is gathered.
func (ind *indenter) end() error {
	ind.dst = append(ind.dst, '\n')
	_, err := ind.w.Write(ind.dst)
	return err
}

// stringEnd returns the index after the string that begins at src[i].
func stringEnd(src []byte, i int) int {
	for k := i + 1; k < len(src); k++ {
		switch src[k] {
		case '\\':
			k++
		case '"':
			return k + 1
		}
	}
	return len(src)
}

// flatArray says whether the array that begins at src[i] holds no array
// or object, and returns the index after it if so.
func flatArray(src []byte, i int) (int, bool) {
	for k := i + 1; k < len(src); k++ {
		switch src[k] {
		case '"':
			k = stringEnd(src, k) - 1
		case '[', '{':
			return 0, false
		case ']':
			return k + 1, true
		}
	}
	return 0, false
}
