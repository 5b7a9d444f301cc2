package dataset

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// arffReader reads Weka's ARFF: a header of @relation and @attribute lines,
// then @data rows, dense ("v1,v2,…") or sparse ("{index value,…}"), with
// '%' comments and '?' for missing values.
type arffReader struct {
	lineReader
	fields   [][]byte
	buf      []byte
	defaults [][]byte     // sparse rows: numeric 0, nominal its first value
	set      []int        // sparse rows: line-stamp per column, to find repeats
	cells    []sparseCell // sparse rows: a row's cells, reused
}

// nextLine returns the next line that is neither blank nor a comment,
// trimmed.
func (r *arffReader) nextLine() ([]byte, error) {
	for {
		line, err := r.readLine()
		if err != nil {
			return nil, err
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] == '%' {
			continue
		}
		return line, nil
	}
}

// keyword reports whether line starts with the @-keyword kw (any case),
// followed by a space or the end, and returns the rest.
func keyword(line []byte, kw string) ([]byte, bool) {
	if len(line) < len(kw) || !strings.EqualFold(string(line[:len(kw)]), kw) {
		return nil, false
	}
	rest := line[len(kw):]
	if len(rest) > 0 && rest[0] != ' ' && rest[0] != '\t' {
		return nil, false
	}
	return bytes.TrimSpace(rest), true
}

// token reads one name or value: quoted with ' or " (backslash escapes), or
// bare up to a space, tab, comma or closing brace. It returns the token and
// the rest of s.
func token(s []byte) (tok, rest []byte, err error) {
	s = bytes.TrimLeft(s, " \t")
	if len(s) == 0 {
		return nil, s, nil
	}
	if q := s[0]; q == '\'' || q == '"' {
		var out []byte
		for i := 1; i < len(s); i++ {
			switch s[i] {
			case '\\':
				if i+1 < len(s) {
					i++
					out = append(out, unescape(s[i]))
				}
			case q:
				return out, s[i+1:], nil
			default:
				out = append(out, s[i])
			}
		}
		return nil, nil, fmt.Errorf("a quoted value is not closed")
	}
	i := 0
	for i < len(s) && s[i] != ' ' && s[i] != '\t' && s[i] != ',' && s[i] != '}' {
		i++
	}
	return s[:i], s[i:], nil
}

func unescape(c byte) byte {
	switch c {
	case 'n':
		return '\n'
	case 't':
		return '\t'
	case 'r':
		return '\r'
	}
	return c
}

// parseAttribute reads "name type" after @attribute.
func parseAttribute(rest []byte, line int) (column, error) {
	name, rest, err := token(rest)
	if err != nil || len(name) == 0 {
		return column{}, errorf(line, "", "an @attribute line needs a name and a type")
	}
	c := column{name: string(name), line: line}
	typ := bytes.TrimSpace(rest)
	if len(typ) > 0 && typ[0] == '{' {
		end := bytes.LastIndexByte(typ, '}')
		if end < 0 {
			return c, errorf(line, c.name, "the list of nominal values is not closed with '}'")
		}
		vals, err := splitValues(typ[1:end], nil, MaxColumns)
		if err != nil {
			return c, errorf(line, c.name, "%v", err)
		}
		c.typ = attrNumeric
		for _, v := range vals {
			c.declared = append(c.declared, string(v))
			if _, ok := numberValue(string(v)); !ok {
				c.typ = attrNominal
			}
		}
		if len(c.declared) == 0 {
			return c, errorf(line, c.name, "a nominal attribute needs at least one value")
		}
		return c, nil
	}
	word, _, _ := bytes.Cut(typ, []byte(" "))
	switch strings.ToLower(string(word)) {
	case "numeric", "real", "integer":
		c.typ = attrNumeric
	case "string", "date":
		c.typ = attrText
	case "relational":
		return c, errorf(line, c.name, "relational attributes are not supported")
	case "":
		return c, errorf(line, c.name, "the attribute has no type")
	default:
		return c, errorf(line, c.name, "unknown attribute type %s (expected numeric, real, integer, string, date or {values})", quote(word))
	}
	return c, nil
}

// splitValues splits comma-separated values, honouring ' and " quotes, and
// trims spaces around each. The values alias s (or fresh memory when quoted).
func splitValues(s []byte, out [][]byte, limit int) ([][]byte, error) {
	out = out[:0]
	quoted := bytes.IndexByte(s, '\'') >= 0 || bytes.IndexByte(s, '"') >= 0
	for {
		var tok []byte
		if quoted {
			s = bytes.TrimLeft(s, " \t")
		}
		if quoted && len(s) > 0 && (s[0] == '\'' || s[0] == '"') {
			t, rest, err := token(s)
			if err != nil {
				return nil, err
			}
			tok, s = t, bytes.TrimLeft(rest, " \t")
			if len(s) > 0 && s[0] != ',' {
				return nil, fmt.Errorf("unexpected %q after a quoted value", s[0])
			}
		} else if k := bytes.IndexByte(s, ','); k >= 0 {
			tok, s = trimSpace(s[:k]), s[k:]
		} else {
			tok, s = trimSpace(s), nil
		}
		out = append(out, tok)
		if len(s) == 0 {
			return out, nil
		}
		if len(out) == limit {
			return nil, fmt.Errorf("more than %d values", limit)
		}
		s = s[1:]
	}
}

// loadARFF reads an ARFF file.
func loadARFF(br *bufio.Reader, o Options, size int64) (*Dataset, error) {
	r := &arffReader{lineReader: lineReader{br: br}}
	var relation string
	var cols []column
	for {
		line, err := r.nextLine()
		if errors.Is(err, io.EOF) {
			if cols == nil {
				return nil, &InputError{Msg: "the file is empty"}
			}
			return nil, &InputError{Line: r.line, Msg: "the ARFF header has no @data line"}
		}
		if err != nil {
			return nil, err
		}
		if rest, ok := keyword(line, "@relation"); ok {
			// The whole line, quoted or not, for MEKA's "-C n".
			relation = string(rest)
			continue
		}
		if rest, ok := keyword(line, "@attribute"); ok {
			if len(cols) == MaxColumns {
				return nil, manyColumnsError(r.line, len(cols)+1)
			}
			c, err := parseAttribute(rest, r.line)
			if err != nil {
				return nil, err
			}
			cols = append(cols, c)
			continue
		}
		if _, ok := keyword(line, "@data"); ok {
			break
		}
		return nil, errorf(r.line, "", "unexpected %s in the ARFF header (expected @relation, @attribute or @data)", quote(line))
	}
	if len(cols) == 0 {
		return nil, &InputError{Line: r.line, Msg: "the ARFF header declares no @attribute"}
	}
	b := newBuilder(o)
	if err := b.setColumns(cols, relation); err != nil {
		return nil, err
	}
	r.defaults = make([][]byte, len(cols))
	for i, c := range cols {
		r.defaults[i] = []byte("0")
		if c.declared != nil {
			r.defaults[i] = []byte(c.declared[0])
		}
	}
	r.set = make([]int, len(cols))
	b.setDefaults(r.defaults)
	b.startSizing(size, r.pos)
	for {
		b.sizeFrom(r.pos)
		if err := b.admit(r.pos); err != nil {
			return nil, err
		}
		line, err := r.nextLine()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if line[0] == '{' {
			cells, err := r.sparse(line, cols)
			if err != nil {
				return nil, err
			}
			if err := b.addSparseRow(r.line, cells); err != nil {
				return nil, err
			}
			continue
		}
		fields, err := splitValues(line, r.fields, len(cols))
		r.fields = fields
		if err != nil {
			return nil, errorf(r.line, "", "%v", err)
		}
		if err := b.addRow(r.line, fields); err != nil {
			return nil, err
		}
	}
	return b.finish()
}

// sparse reads "{index value, …}": the cells it gives, in the order of
// their columns; every other column holds its default (builder.setDefaults).
func (r *arffReader) sparse(line []byte, cols []column) ([]sparseCell, error) {
	end := closingBrace(line)
	if end < 0 {
		return nil, errorf(r.line, "", "a sparse row is not closed with '}'")
	}
	if rest := bytes.TrimSpace(line[end+1:]); len(rest) > 0 {
		return nil, errorf(r.line, "", "unexpected %s after a sparse row (instance weights are not supported)", quote(rest))
	}
	cells := r.cells[:0]
	sorted := true
	body := bytes.TrimSpace(line[1:end])
	for len(body) > 0 {
		idx, rest, err := token(body)
		if err != nil {
			return nil, errorf(r.line, "", "%v", err)
		}
		i, err := strconv.Atoi(string(idx))
		if err != nil || i < 0 || i >= len(cols) {
			return nil, errorf(r.line, "", "%s is not an attribute index (0 to %d) in a sparse row", quote(idx), len(cols)-1)
		}
		val, rest, err := token(rest)
		if err != nil {
			return nil, errorf(r.line, cols[i].name, "%v", err)
		}
		if r.set[i] == r.line {
			return nil, errorf(r.line, cols[i].name, "attribute index %d appears twice in a sparse row", i)
		}
		r.set[i] = r.line
		if n := len(cells); n > 0 && cells[n-1].col > i {
			sorted = false
		}
		cells = append(cells, sparseCell{col: i, val: val})
		rest = bytes.TrimLeft(rest, " \t")
		if len(rest) > 0 {
			if rest[0] != ',' {
				return nil, errorf(r.line, cols[i].name, "expected ',' between the entries of a sparse row, found %q", rest[0])
			}
			rest = rest[1:]
		}
		body = bytes.TrimLeft(rest, " \t")
	}
	if !sorted {
		slices.SortFunc(cells, func(a, b sparseCell) int { return a.col - b.col })
	}
	r.cells = cells
	return cells, nil
}

// closingBrace returns the index of the first '}' of a sparse row that is
// not inside a quoted value, or -1. (The last '}' would be that of a weight,
// as in "{0 1}, {3}".)
func closingBrace(line []byte) int {
	var quote byte
	for i := 1; i < len(line); i++ {
		switch c := line[i]; {
		case quote != 0 && c == '\\':
			i++
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
		case c == '\'' || c == '"':
			quote = c
		case c == '}':
			return i
		}
	}
	return -1
}
