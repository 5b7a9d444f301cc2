package formparts

import (
	"bytes"
	"errors"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

// part is what a test reads of one part.
type part struct {
	Header   textproto.MIMEHeader
	FormName string
	FileName string
	Body     string
}

// readAll reads every part of a body with NextPart and Read; err is the
// first error other than the io.EOF after the last part.
func readAll(next func() (part, io.Reader, error)) (parts []part, err error) {
	for {
		p, body, err := next()
		if err == io.EOF {
			return parts, nil
		}
		if err != nil {
			return parts, err
		}
		b, err := io.ReadAll(body)
		p.Body = string(b)
		parts = append(parts, p)
		if err != nil {
			return parts, err
		}
	}
}

func readOurs(r io.Reader, boundary string) ([]part, error) {
	mr := NewReader(r, boundary)
	return readAll(func() (part, io.Reader, error) {
		p, err := mr.NextPart()
		if err != nil {
			return part{}, nil, err
		}
		return part{Header: p.Header, FormName: p.FormName(), FileName: p.FileName()}, p, nil
	})
}

func readStd(r io.Reader, boundary string) ([]part, error) {
	mr := multipart.NewReader(r, boundary)
	return readAll(func() (part, io.Reader, error) {
		p, err := mr.NextPart()
		if err != nil {
			return part{}, nil, err
		}
		return part{Header: p.Header, FormName: p.FormName(), FileName: p.FileName()}, p, nil
	})
}

// formBody writes fields (name, value; a name with a "/" is a file part
// named after what follows it) with mime/multipart's Writer.
func formBody(t testing.TB, boundary string, fields ...string) string {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	if err := w.SetBoundary(boundary); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(fields); i += 2 {
		name, value := fields[i], fields[i+1]
		var pw io.Writer
		var err error
		if field, file, ok := strings.Cut(name, "/"); ok {
			pw, err = w.CreateFormFile(field, file)
		} else {
			pw, err = w.CreateFormField(name)
		}
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(pw, value)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestReadsParts(t *testing.T) {
	const bd = "XyZ123"
	big := strings.Repeat("1.5,2,-3e4\n", 100_000) // four buffers' worth
	nearly := "a\r\n--" + bd + "x\r\n--" + bd + "-y\n--" + bd
	lf := strings.ReplaceAll(formBody(t, bd, "name", "n1", "file/d.csv", "a,b\n1,2\n"), "\r\n", "\n")
	type want struct {
		form, file, body string
	}
	for _, tc := range []struct {
		name string
		body string
		want []want
		err  string // a substring of the error, "" for none
	}{
		{"fields and a file", formBody(t, bd, "name", "yeast", "labels", "14", "file/yeast.csv", "a,b\n1,2\n"),
			[]want{{"name", "", "yeast"}, {"labels", "", "14"}, {"file", "yeast.csv", "a,b\n1,2\n"}}, ""},
		{"a file larger than the buffer", formBody(t, bd, "file/big.csv", big, "name", "after"),
			[]want{{"file", "big.csv", big}, {"name", "", "after"}}, ""},
		{"a body with the delimiter's start in it", formBody(t, bd, "file/x.csv", nearly),
			[]want{{"file", "x.csv", nearly}}, ""},
		{"empty parts", formBody(t, bd, "a", "", "file/e.csv", ""),
			[]want{{"a", "", ""}, {"file", "e.csv", ""}}, ""},
		{"a preamble and an epilogue", "preamble line\r\n" + formBody(t, bd, "a", "1") + "epilogue\r\n",
			[]want{{"a", "", "1"}}, ""},
		{"line ends of \\n alone", lf, []want{{"name", "", "n1"}, {"file", "d.csv", "a,b\n1,2\n"}}, ""},
		{"the final delimiter without a line end", strings.TrimSuffix(formBody(t, bd, "a", "1"), "\r\n"),
			[]want{{"a", "", "1"}}, ""},
		{"a directory in the file name", "--" + bd + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"../../etc/x.csv\"\r\n\r\nq\r\n--" + bd + "--\r\n",
			[]want{{"file", "x.csv", "q"}}, ""},
		{"quoted-printable", "--" + bd + "\r\nContent-Disposition: form-data; name=\"a\"\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\nx=3Dy=\r\nz\r\n--" + bd + "--\r\n",
			[]want{{"a", "", "x=yz"}}, ""},
		{"no final delimiter", strings.TrimSuffix(formBody(t, bd, "a", "1"), "--"+bd+"--\r\n"),
			[]want{{"a", "", "1"}}, "unexpected EOF"},
		{"a body cut short", formBody(t, bd, "a", "12345")[:60], []want{{"a", "", "12345"}}, "unexpected EOF"},
		{"a line where a delimiter must be", "--" + bd + "\r\nA: b\r\n\r\nx\r\n--" + bd + " junk\r\n",
			[]want{{"", "", "x"}}, "expecting a new Part"},
		{"headers without their blank line", "--" + bd + "\r\nContent-Disposition: form-data; name=\"a\"\r\n", nil, "unexpected EOF"},
		{"a malformed header", "--" + bd + "\r\nno colon here\r\n\r\nx\r\n--" + bd + "--\r\n", nil, "malformed MIME header"},
		{"headers over the limit", "--" + bd + "\r\n" + strings.Repeat("X-A: "+strings.Repeat("b", 100)+"\r\n", 700) + "\r\nx\r\n--" + bd + "--\r\n",
			nil, "headers are longer than 64 KiB"},
		{"a line over the buffer before the first part", strings.Repeat("p", bufferSize+10) + "\r\n" + formBody(t, bd, "a", "1"),
			nil, "multipart: a line is longer than 256 KiB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, rd := range []struct {
				name string
				wrap func(io.Reader) io.Reader
			}{
				{"whole", func(r io.Reader) io.Reader { return r }},
				{"one byte at a time", iotest.OneByteReader},
				{"half", iotest.HalfReader},
				{"error with the data", iotest.DataErrReader},
			} {
				parts, err := readOurs(rd.wrap(strings.NewReader(tc.body)), bd)
				switch {
				case tc.err == "" && err != nil:
					t.Fatalf("%s: got error %v, want none", rd.name, err)
				case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
					t.Fatalf("%s: got error %v, want one with %q", rd.name, err, tc.err)
				case tc.err != "" && !strings.HasPrefix(err.Error(), "multipart: ") && !errors.Is(err, io.ErrUnexpectedEOF):
					t.Errorf("%s: error %q does not start with \"multipart: \"", rd.name, err)
				case tc.err != "" && strings.Count(err.Error(), "multipart: ") > 1:
					t.Errorf("%s: error %q says \"multipart: \" more than once", rd.name, err)
				}
				var got []want
				for _, p := range parts {
					got = append(got, want{p.FormName, p.FileName, p.Body})
				}
				if !reflect.DeepEqual(got, tc.want) {
					t.Errorf("%s: got %.300q, want %.300q", rd.name, got, tc.want)
				}
				if len(tc.body) > 1<<20 {
					continue
				}
				// Where mime/multipart reads the body, it reads the same.
				std, serr := readStd(strings.NewReader(tc.body), bd)
				if (serr == nil) != (err == nil) && !stricter(err) {
					t.Errorf("%s: got error %v, mime/multipart %v", rd.name, err, serr)
				}
				if serr == nil && err == nil && !reflect.DeepEqual(parts, std) {
					t.Errorf("%s: got %.300q, mime/multipart %.300q", rd.name, parts, std)
				}
			}
		})
	}
}

// TestEverySplit reads bodies whose parts hold the start of a delimiter
// (and one cut short) in pieces of every size up to twice the delimiter's
// length, so that the end of a piece falls at every byte of each, and
// compares them with mime/multipart.
func TestEverySplit(t *testing.T) {
	const bd = "b0"
	tricky := "x\r\n--b0y\r\n--b\r\n-\r\n--b0-z\r\n\r\n"
	for _, body := range []string{
		formBody(t, bd, "a", tricky, "file/f.csv", tricky+"1"),
		strings.ReplaceAll(formBody(t, bd, "a", tricky), "\r\n", "\n"),
		formBody(t, bd, "a", "12345")[:52],
	} {
		want, werr := readStd(strings.NewReader(body), bd)
		for n := range 2 * len("\r\n--"+bd+"--") {
			got, err := readOurs(pieces(body, n), bd)
			if (err == nil) != (werr == nil) || !reflect.DeepEqual(got, want) {
				t.Errorf("%q in pieces of %d: got %q (%v), mime/multipart %q (%v)", body, n+1, got, err, want, werr)
			}
		}
	}
}

// TestNextPartSkipsUnread checks that NextPart consumes what the caller
// left of a part, and that a part's headers reach the caller.
func TestNextPartSkipsUnread(t *testing.T) {
	body := formBody(t, "b0", "file/a.csv", strings.Repeat("x", 600_000), "name", "n")
	mr := NewReader(strings.NewReader(body), "b0")
	p, err := mr.NextPart()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := p.Header.Get("Content-Type"), "application/octet-stream"; got != want {
		t.Errorf("got Content-Type %q, want %q", got, want)
	}
	buf := make([]byte, 10)
	if _, err := io.ReadFull(p, buf); err != nil {
		t.Fatal(err)
	}
	p, err = mr.NextPart()
	if err != nil {
		t.Fatalf("got %v, want the second part", err)
	}
	if b, _ := io.ReadAll(p); p.FormName() != "name" || string(b) != "n" {
		t.Errorf("got part %q = %q, want name = n", p.FormName(), b)
	}
	if _, err := mr.NextPart(); err != io.EOF {
		t.Errorf("got %v, want io.EOF", err)
	}
}

func TestFromRequest(t *testing.T) {
	for _, tc := range []struct {
		ctype string
		err   error
	}{
		{"multipart/form-data; boundary=abc", nil},
		{"multipart/mixed; boundary=abc", nil},
		{"text/csv", ErrNotMultipart},
		{"", ErrNotMultipart},
		{"multipart/form-data", ErrMissingBoundary},
		{"multipart/form-data; boundary=\"unterminated", ErrNotMultipart},
	} {
		r, _ := http.NewRequest(http.MethodPost, "/", strings.NewReader("--abc\r\nA: b\r\n\r\nx\r\n--abc--\r\n"))
		if tc.ctype != "" {
			r.Header.Set("Content-Type", tc.ctype)
		}
		mr, err := FromRequest(r)
		if err != tc.err {
			t.Errorf("%q: got error %v, want %v", tc.ctype, err, tc.err)
			continue
		}
		if err != nil {
			continue
		}
		p, err := mr.NextPart()
		if err != nil {
			t.Fatalf("%q: %v", tc.ctype, err)
		}
		if b, _ := io.ReadAll(p); string(b) != "x" {
			t.Errorf("%q: got body %q, want x", tc.ctype, b)
		}
	}
}

// TestEmptyBoundary checks the refusal of an empty boundary.
func TestEmptyBoundary(t *testing.T) {
	if _, err := NewReader(strings.NewReader("--\r\n"), "").NextPart(); err == nil || !strings.Contains(err.Error(), "boundary is empty") {
		t.Errorf("got %v, want the empty boundary refused", err)
	}
}

// TestNoProgress checks that a source that returns neither bytes nor an
// error ends the reading instead of spinning.
func TestNoProgress(t *testing.T) {
	_, err := NewReader(emptyReader{}, "b").NextPart()
	if !errors.Is(err, io.ErrNoProgress) {
		t.Errorf("got %v, want io.ErrNoProgress", err)
	}
}

type emptyReader struct{}

func (emptyReader) Read([]byte) (int, error) { return 0, nil }

// FuzzMatchesMimeMultipart reads arbitrary bodies with this package and
// with mime/multipart, each fed in pieces of its own size, and requires
// the same parts, the same bytes and an error at the same place.
func FuzzMatchesMimeMultipart(f *testing.F) {
	f.Add(formBody(f, "b0", "name", "x", "file/a.csv", "1,2\n3,4\n"), "b0", uint8(0), uint8(7))
	f.Add(strings.ReplaceAll(formBody(f, "b0", "file/a.csv", "1,2\r\n--b0x\n"), "\r\n", "\n"), "b0", uint8(3), uint8(1))
	f.Add("--b0\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\na=3Db\r\n--b0--", "b0", uint8(1), uint8(2))
	f.Add("--b0\r\n\r\n--b0--\r\n", "b0", uint8(5), uint8(0))
	f.Add("--b0 \t\r\nA: b\r\n c\r\n\r\n\r\n--b0-\r\n--b0--", "b0", uint8(2), uint8(9))
	f.Fuzz(func(t *testing.T, body, boundary string, ours, theirs uint8) {
		for _, line := range strings.Split(body, "\n") {
			if len(line) >= 4000 {
				t.Skip("mime/multipart refuses lines longer than its 4 KiB buffer")
			}
		}
		got, err := readOurs(pieces(body, int(ours)), boundary)
		want, werr := readStd(pieces(body, int(theirs)), boundary)
		if (err == nil) != (werr == nil) && !(werr == nil && stricter(err)) {
			t.Fatalf("got error %v, mime/multipart %v", err, werr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("got %q (%v), mime/multipart %q (%v)", got, err, want, werr)
		}
	})
}

// stricter reports the errors this package gives where mime/multipart
// reads on: headers over MaxHeaderBytes or a line over the buffer (it
// allows 10 MiB of headers; its lines stop at 4 KiB), and a body that ends
// inside a part's headers, which mime/multipart takes for the end of the
// parts (its NextPart returns io.EOF), so that a form cut short there would
// lose its later fields without a word.
func stricter(err error) bool {
	return err != nil && (strings.Contains(err.Error(), "longer than") ||
		strings.Contains(err.Error(), "reading a part's headers: unexpected EOF"))
}

// pieces returns a reader of s that hands it out n+1 bytes at a time, or
// whole for n = 0.
func pieces(s string, n int) io.Reader {
	if n == 0 {
		return strings.NewReader(s)
	}
	return &chunked{s: s, n: n + 1}
}

type chunked struct {
	s string
	n int
}

func (c *chunked) Read(p []byte) (int, error) {
	if len(c.s) == 0 {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), c.n)], c.s)
	c.s = c.s[k:]
	return k, nil
}

// BenchmarkReadFile reads the file part of a 32 MB upload of a CSV whose
// lines end in "\n", with this package and with mime/multipart, into a
// 256 KiB buffer as the store's receiving does.
func BenchmarkReadFile(b *testing.B) {
	const bd = "------WebKitFormBoundary7MA4YWxkTrZu0gW"
	row := strings.Repeat("-0.1234567,", 49) + "0.7654321\n"
	body := formBody(b, bd, "name", "x", "file/x.csv", strings.Repeat(row, 32<<20/len(row)))
	buf := make([]byte, 256<<10)
	for _, bc := range []struct {
		name  string
		parts func(io.Reader) func() (io.Reader, error)
	}{
		{"formparts", func(r io.Reader) func() (io.Reader, error) {
			mr := NewReader(r, bd)
			return func() (io.Reader, error) { return mr.NextPart() }
		}},
		{"mime-multipart", func(r io.Reader) func() (io.Reader, error) {
			mr := multipart.NewReader(r, bd)
			return func() (io.Reader, error) { return mr.NextPart() }
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				next := bc.parts(strings.NewReader(body))
				for {
					p, err := next()
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					if _, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{p}, buf); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
