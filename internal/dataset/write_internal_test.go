package dataset

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"testing"
)

// TestWriteFieldAsEncodingCSV checks that writeField quotes a field
// exactly as encoding/csv's Writer does.
func TestWriteFieldAsEncodingCSV(t *testing.T) {
	for _, s := range []string{"", "a", "a,b", `a"b`, "a\nb", "a\r\nb", " a", "\ta", "\u00a0a", "\u2003a", `\.`, `\.x`, "'=1+1", "é,", "x "} {
		var got, want bytes.Buffer
		bw := bufio.NewWriter(&got)
		writeField(bw, s)
		bw.Flush()
		cw := csv.NewWriter(&want)
		cw.Write([]string{s})
		cw.Flush()
		if w := bytes.TrimSuffix(want.Bytes(), []byte("\n")); !bytes.Equal(got.Bytes(), w) {
			t.Errorf("writeField(%q): got %q, want %q", s, got.Bytes(), w)
		}
	}
}
