// Package formparts reads a multipart/form-data body part by part, with
// the grammar, the leniencies and the errors' prefix of the standard
// library's mime/multipart reader, but through a 256 KiB buffer and with a
// boundary search that looks at each byte of a part once.
//
// Why not mime/multipart: its reader holds 4 KiB of the body at a time
// and, for each, searches all of it backwards, a byte at a time, for the
// first byte of a delimiter that the end of the 4 KiB might have cut off.
// In a CSV whose lines end in "\n" alone there is no "\r" to stop that
// search, so it reads every byte of the file a second time: 0.19 s of the
// server's 1.94 s of CPU on a 221 MB upload (docs/BENCHMARKS.md, the
// end-to-end rows). A delimiter cut off by the end of the buffer begins in its last
// len(delimiter)−1 bytes (one that began earlier would have been found
// whole), so this reader searches there alone; everything else (the
// delimiter lines, the headers, read by net/textproto, quoted-printable
// parts, the "\n"-only bodies mime/multipart accepts) follows the
// standard library, and a fuzz test compares the two on arbitrary bodies.
package formparts

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/quotedprintable"
	"net/http"
	"net/textproto"
	"path/filepath"
	"strings"
)

// bufferSize is the reader's buffer: the most a part's Read hands out at a
// time, and the longest line (a delimiter or preamble line) it accepts.
const bufferSize = 256 << 10

// MaxHeaderBytes bounds a part's header block, its blank line included.
// Browsers send a few hundred bytes; mime/multipart allows 10 MiB.
const MaxHeaderBytes = 64 << 10

// ErrNotMultipart is returned by FromRequest for a request whose
// Content-Type is not multipart/form-data or multipart/mixed.
var ErrNotMultipart = errors.New("the request's Content-Type is not multipart/form-data")

// ErrMissingBoundary is returned by FromRequest for a multipart
// Content-Type without a boundary parameter.
var ErrMissingBoundary = errors.New("the request's multipart Content-Type has no boundary")

// errBufferFull reports a line (or a boundary) longer than the buffer.
var errBufferFull = errors.New("multipart: a line is longer than 256 KiB")

// errHeadersTooLong reports a part's headers longer than MaxHeaderBytes.
var errHeadersTooLong = fmt.Errorf("multipart: a part's headers are longer than %d KiB", MaxHeaderBytes>>10)

// Reader reads the parts of a multipart body in order. It is not safe for
// concurrent use.
type Reader struct {
	src  io.Reader
	buf  []byte
	r, w int   // buf[r:w] is read from src and not yet consumed
	err  error // the error src returned, after which it is not read again

	current   *Part
	partsRead int

	nl               []byte // "\r\n" or "\n" (set after the first delimiter line)
	nlDashBoundary   []byte // nl + "--boundary"
	dashBoundaryDash []byte // "--boundary--"
	dashBoundary     []byte // "--boundary"
}

// NewReader returns a Reader of the multipart body r whose parts are
// delimited by boundary (the Content-Type's boundary parameter).
func NewReader(r io.Reader, boundary string) *Reader {
	b := []byte("\r\n--" + boundary + "--")
	return &Reader{
		src:              r,
		buf:              make([]byte, bufferSize),
		nl:               b[:2],
		nlDashBoundary:   b[:len(b)-2],
		dashBoundaryDash: b[2:],
		dashBoundary:     b[2 : len(b)-2],
	}
}

// FromRequest returns a Reader of the body of a multipart/form-data (or
// multipart/mixed) request, as http.Request.MultipartReader does: it gives
// ErrNotMultipart for another Content-Type and ErrMissingBoundary for one
// without a boundary.
func FromRequest(r *http.Request) (*Reader, error) {
	v := r.Header.Get("Content-Type")
	if v == "" || r.Body == nil {
		return nil, ErrNotMultipart
	}
	d, params, err := mime.ParseMediaType(v)
	if err != nil || (d != "multipart/form-data" && d != "multipart/mixed") {
		return nil, ErrNotMultipart
	}
	boundary, ok := params["boundary"]
	if !ok {
		return nil, ErrMissingBoundary
	}
	return NewReader(r.Body, boundary), nil
}

// fill reads from src once more into the buffer, after moving the
// unconsumed bytes to its start. It returns nil if bytes came, and
// otherwise src's error (kept: src is not read after it), or
// errBufferFull if the buffer holds nothing but unconsumed bytes.
func (mr *Reader) fill() error {
	if mr.r > 0 {
		mr.w = copy(mr.buf, mr.buf[mr.r:mr.w])
		mr.r = 0
	}
	for empty := 0; mr.err == nil; empty++ {
		if mr.w == len(mr.buf) {
			return errBufferFull
		}
		if empty == 100 {
			mr.err = io.ErrNoProgress
			break
		}
		n, err := mr.src.Read(mr.buf[mr.w:])
		mr.w += n
		mr.err = err
		if n > 0 {
			return nil
		}
	}
	return mr.err
}

// readLine consumes and returns the next line, its "\n" included, as
// bufio.Reader.ReadSlice does: at the end of the body, or at an error,
// what is left and the error. The line is valid until the next read.
func (mr *Reader) readLine() ([]byte, error) {
	for {
		if i := bytes.IndexByte(mr.buf[mr.r:mr.w], '\n'); i >= 0 {
			line := mr.buf[mr.r : mr.r+i+1]
			mr.r += i + 1
			return line, nil
		}
		if err := mr.fill(); err != nil {
			line := mr.buf[mr.r:mr.w]
			mr.r = mr.w
			return line, err
		}
	}
}

// readHeaderBlock consumes and returns a part's header lines through the
// blank line ("\n" or "\r\n") that ends them. The block is valid until the
// next read.
func (mr *Reader) readHeaderBlock() ([]byte, error) {
	off := 0 // the start of the first line not yet looked at, from mr.r
	for {
		data := mr.buf[mr.r:mr.w]
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			if len(data) >= MaxHeaderBytes {
				return nil, errHeadersTooLong
			}
			if err := mr.fill(); err != nil {
				if err == io.EOF {
					err = io.ErrUnexpectedEOF
				}
				return nil, fmt.Errorf("multipart: reading a part's headers: %w", err)
			}
			continue
		}
		line := data[off : off+i+1]
		off += i + 1
		if off > MaxHeaderBytes {
			return nil, errHeadersTooLong
		}
		if len(line) == 1 || (len(line) == 2 && line[0] == '\r') {
			mr.r += off
			return data[:off], nil
		}
	}
}

// NextPart returns the next part, after consuming what the caller left of
// the current one, or io.EOF after the last. A part whose
// Content-Transfer-Encoding is quoted-printable is decoded as it is read,
// and that header is removed, as mime/multipart does.
func (mr *Reader) NextPart() (*Part, error) {
	if mr.current != nil {
		mr.current.Close()
		mr.current = nil
	}
	if string(mr.dashBoundary) == "--" {
		return nil, errors.New("multipart: boundary is empty")
	}
	expectNewPart := false
	for {
		line, err := mr.readLine()
		if err == io.EOF && mr.isFinalBoundary(line) {
			// "--boundary--" at the very end, without a line end.
			return nil, io.EOF
		}
		if errors.Is(err, errBufferFull) {
			return nil, err
		}
		if err != nil {
			return nil, fmt.Errorf("multipart: NextPart: %w", err)
		}
		if mr.isBoundaryDelimiterLine(line) {
			mr.partsRead++
			p, err := mr.newPart()
			if err != nil {
				return nil, err
			}
			mr.current = p
			return p, nil
		}
		if mr.isFinalBoundary(line) {
			return nil, io.EOF
		}
		if expectNewPart {
			return nil, fmt.Errorf("multipart: expecting a new Part; got line %q", string(line))
		}
		if mr.partsRead == 0 {
			continue // the preamble
		}
		// The line end between the previous part's body and the
		// delimiter line that must follow.
		if bytes.Equal(line, mr.nl) {
			expectNewPart = true
			continue
		}
		return nil, fmt.Errorf("multipart: unexpected line in Next(): %q", line)
	}
}

// newPart reads a part's headers, the delimiter line just consumed.
func (mr *Reader) newPart() (*Part, error) {
	block, err := mr.readHeaderBlock()
	if err != nil {
		return nil, err
	}
	header, err := textproto.NewReader(bufio.NewReader(bytes.NewReader(block))).ReadMIMEHeader()
	if err != nil {
		return nil, fmt.Errorf("multipart: reading a part's headers: %w", err)
	}
	p := &Part{Header: header, mr: mr}
	p.r = partReader{p}
	const cte = "Content-Transfer-Encoding"
	if strings.EqualFold(p.Header.Get(cte), "quoted-printable") {
		p.Header.Del(cte)
		p.r = quotedprintable.NewReader(p.r)
	}
	return p, nil
}

// isFinalBoundary reports whether line is `--boundary--[ \t]*(\r\n)?`.
func (mr *Reader) isFinalBoundary(line []byte) bool {
	if !bytes.HasPrefix(line, mr.dashBoundaryDash) {
		return false
	}
	rest := skipLWSPChar(line[len(mr.dashBoundaryDash):])
	return len(rest) == 0 || bytes.Equal(rest, mr.nl)
}

// isBoundaryDelimiterLine reports whether line is `--boundary[ \t]*` and
// the line end (RFC 2046, section 5.1). At the first part, a line ending
// in "\n" alone switches the reader to such line ends, as mime/multipart
// does.
func (mr *Reader) isBoundaryDelimiterLine(line []byte) bool {
	if !bytes.HasPrefix(line, mr.dashBoundary) {
		return false
	}
	rest := skipLWSPChar(line[len(mr.dashBoundary):])
	if mr.partsRead == 0 && len(rest) == 1 && rest[0] == '\n' {
		mr.nl = mr.nl[1:]
		mr.nlDashBoundary = mr.nlDashBoundary[1:]
	}
	return bytes.Equal(rest, mr.nl)
}

// skipLWSPChar returns b without its leading spaces and tabs.
func skipLWSPChar(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	return b
}

// Part is one part of a multipart body: its headers and, through Read,
// its body.
type Part struct {
	// Header is the part's MIME header.
	Header textproto.MIMEHeader

	mr *Reader
	r  io.Reader // partReader, or a decoder around it

	n       int   // bytes at the start of mr's buffer known to be the body's
	total   int64 // bytes of the body read so far
	err     error // the error to return once the n bytes are read
	readErr error // the error of the last fill

	disposition       string
	dispositionParams map[string]string
}

// FormName returns the name parameter of a "form-data"
// Content-Disposition, or "".
func (p *Part) FormName() string {
	p.parseContentDisposition()
	if p.disposition != "form-data" {
		return ""
	}
	return p.dispositionParams["name"]
}

// FileName returns the base name (filepath.Base, RFC 7578 section 4.2) of
// the Content-Disposition's filename parameter, or "".
func (p *Part) FileName() string {
	p.parseContentDisposition()
	name := p.dispositionParams["filename"]
	if name == "" {
		return ""
	}
	return filepath.Base(name)
}

func (p *Part) parseContentDisposition() {
	if p.dispositionParams != nil {
		return
	}
	var err error
	p.disposition, p.dispositionParams, err = mime.ParseMediaType(p.Header.Get("Content-Disposition"))
	if err != nil {
		p.dispositionParams = map[string]string{}
	}
}

// Read reads the part's body; io.EOF at its end.
func (p *Part) Read(d []byte) (int, error) { return p.r.Read(d) }

// Close consumes the rest of the part's body.
func (p *Part) Close() error {
	_, _ = io.Copy(io.Discard, p)
	return nil
}

// partReader reads a part's body as it is sent, before any decoding.
type partReader struct{ p *Part }

func (pr partReader) Read(d []byte) (int, error) {
	p, mr := pr.p, pr.p.mr
	for p.n == 0 && p.err == nil {
		p.n, p.err = scanUntilBoundary(mr.buf[mr.r:mr.w], mr.dashBoundary, mr.nlDashBoundary, p.total, p.readErr)
		if p.n == 0 && p.err == nil {
			p.readErr = mr.fill()
			if p.readErr == io.EOF {
				p.readErr = io.ErrUnexpectedEOF
			}
		}
	}
	if p.n == 0 {
		return 0, p.err
	}
	n := copy(d, mr.buf[mr.r:mr.r+p.n])
	mr.r += n
	p.total += int64(n)
	p.n -= n
	if p.n == 0 {
		return n, p.err
	}
	return n, nil
}

// scanUntilBoundary returns how many bytes at the start of buf are the
// part's body, and the error to return after them (io.EOF at the
// delimiter), as mime/multipart's function of that name does.
// dashBoundary is "--boundary", nlDashBoundary the line end and
// dashBoundary; total is the count of body bytes read before buf, and
// readErr the error of the read that ended buf.
func scanUntilBoundary(buf, dashBoundary, nlDashBoundary []byte, total int64, readErr error) (int, error) {
	if total == 0 {
		// At the start of the body, the delimiter may come without
		// the line end before it.
		if bytes.HasPrefix(buf, dashBoundary) {
			switch matchAfterPrefix(buf, dashBoundary, readErr) {
			case -1:
				return len(dashBoundary), nil
			case 0:
				return 0, nil
			case +1:
				return 0, io.EOF
			}
		}
		if bytes.HasPrefix(dashBoundary, buf) {
			return 0, readErr
		}
	}
	if i := bytes.Index(buf, nlDashBoundary); i >= 0 {
		switch matchAfterPrefix(buf[i:], nlDashBoundary, readErr) {
		case -1:
			return i + len(nlDashBoundary), nil
		case 0:
			return i, nil
		case +1:
			return i, io.EOF
		}
	}
	if bytes.HasPrefix(nlDashBoundary, buf) {
		return 0, readErr
	}
	// A delimiter cut off by the end of buf begins in its last
	// len(nlDashBoundary)−1 bytes (one that began earlier would have been
	// found whole above): the body runs to the last line-end byte there
	// if what follows it is the start of a delimiter, and to the end of
	// buf otherwise. mime/multipart searches all of buf for that byte,
	// with the same result.
	from := max(0, len(buf)-len(nlDashBoundary)+1)
	if i := bytes.LastIndexByte(buf[from:], nlDashBoundary[0]); i >= 0 && bytes.HasPrefix(nlDashBoundary, buf[from+i:]) {
		return from + i, nil
	}
	return len(buf), readErr
}

// matchAfterPrefix tells, for buf starting with prefix (a delimiter
// without what ends it), whether it is a delimiter (+1: followed by "--",
// a space, a tab, a line end or the end of the body), not one (-1), or
// whether more of the body is needed to tell (0).
func matchAfterPrefix(buf, prefix []byte, readErr error) int {
	if len(buf) == len(prefix) {
		if readErr != nil {
			return +1
		}
		return 0
	}
	c := buf[len(prefix)]
	if c == ' ' || c == '\t' || c == '\r' || c == '\n' {
		return +1
	}
	if c == '-' {
		if len(buf) == len(prefix)+1 {
			if readErr != nil {
				return -1
			}
			return 0
		}
		if buf[len(prefix)+1] == '-' {
			return +1
		}
	}
	return -1
}
