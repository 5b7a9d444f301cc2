package jobs

import (
	"encoding/json"
	"io"

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

// writeIndented writes src, JSON as json.Marshal writes it (no white
// space outside strings), indented as json.Indent with two spaces indents
// it, except that an array holding no array or object (a projection's
// row, the eigenvalues, a list of names) stays on one line as it is. It
// ends with a newline, as json.Encoder's output does. A matrix is so one
// line a row, not one a number: a quarter of the bytes, and written in a
// quarter of the time of json.Encoder.SetIndent.
func writeIndented(w io.Writer, src []byte) error {
	const flushAt = 32 << 10
	dst := make([]byte, 0, min(len(src)+len(src)/4, 2*flushAt)+256)
	depth := 0
	newline := func() {
		dst = append(dst, '\n')
		for range depth {
			dst = append(dst, ' ', ' ')
		}
	}
	for i := 0; i < len(src); i++ {
		if len(dst) >= flushAt {
			if _, err := w.Write(dst); err != nil {
				return err
			}
			dst = dst[:0]
		}
		switch c := src[i]; c {
		case '"':
			end := stringEnd(src, i)
			dst = append(dst, src[i:end]...)
			i = end - 1
		case '[', '{':
			if i+1 < len(src) && (src[i+1] == ']' || src[i+1] == '}') { // empty
				dst = append(dst, c, src[i+1])
				i++
				continue
			}
			if c == '[' {
				if end, flat := flatArray(src, i); flat {
					dst = append(dst, src[i:end]...)
					i = end - 1
					continue
				}
			}
			dst = append(dst, c)
			depth++
			newline()
		case ']', '}':
			depth--
			newline()
			dst = append(dst, c)
		case ',':
			dst = append(dst, ',')
			newline()
		case ':':
			dst = append(dst, ':', ' ')
		default:
			dst = append(dst, c)
		}
	}
	dst = append(dst, '\n')
	_, err := w.Write(dst)
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
