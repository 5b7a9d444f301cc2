package dataset

import (
	"bufio"
	"bytes"
	"errors"
	"strings"
	"testing"
)

// FuzzClosesQuotes checks closesQuotes against what it predicts: whether
// splitQuoted, given the line alone, needs another line.
func FuzzClosesQuotes(f *testing.F) {
	for _, s := range []string{
		`a,"b",c`, `"a ""q"" b", 1`, `"open,1`, ` "a" ,b`, "\t\"a\",b", `"a"x,b`, `x"y,1`, `"",""`, `"a""`, `1,"2`,
	} {
		f.Add([]byte(s), byte(0))
	}
	f.Fuzz(func(t *testing.T, line []byte, d byte) {
		if bytes.IndexByte(line, '\n') >= 0 {
			return // a line holds no line break
		}
		delim := []byte{',', ';', '\t'}[d%3]
		r := &csvReader{lineReader: lineReader{br: bufio.NewReader(bytes.NewReader(nil))}, delim: delim}
		_, err := r.splitQuoted(line, 1)
		var ie *InputError
		open := errors.As(err, &ie) && strings.Contains(ie.Msg, "never closed")
		if got := closesQuotes(line, delim); got == open {
			t.Fatalf("closesQuotes(%q, %q): got %v, but splitQuoted gives %v", line, delim, got, err)
		}
	})
}
