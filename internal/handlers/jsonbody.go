package handlers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"mldr/internal/dataset"
)

// jsonBody is a JSON body an endpoint reads, as its refusals name it.
type jsonBody struct {
	// what names the body in a sentence: "job request".
	what string
	// shape is an example of it, which a malformed body is told to follow.
	shape string
	// fields lists the keys an object of it takes, for an unknown key;
	// "" when the body nests objects, whose keys differ by level.
	fields string
}

// The JSON bodies of the API.
var (
	jobBody = jsonBody{what: "job request",
		shape: `{"dataset": "ID", "method": "pca", "params": {"d": 2}} (see docs/API.md, POST /api/jobs)`}
	relabelBody = jsonBody{what: "choice of label columns",
		shape: `{"labels": ["col1", "col2"], "kind": ""}`, fields: "labels and kind"}
	selectionBody = jsonBody{what: "selection",
		shape: `{"method": "pca", "rows": [1, 2, 3]}`, fields: "method and rows"}
	namedSelectionBody = jsonBody{what: "named selection",
		shape: `{"name": "cluster 1", "method": "pca", "rows": [1, 2, 3]}`, fields: "name, method and rows"}
)

// readJSON reads r's body as one JSON value of the kind body describes
// into v, refusing with 400 and a sentence of that body's own an empty or
// malformed body, more than one value, a key given twice in an object at
// any depth (duplicateKey), a key v does not take and a value of the
// wrong type, each with its field where there is one. A body larger than
// its route allows is refused as it is read (413).
func readJSON(r *http.Request, v any, body jsonBody) error {
	data, err := io.ReadAll(r.Body)
	var mb *http.MaxBytesError
	switch {
	case errors.As(err, &mb):
		return err // 413
	case err != nil:
		return badRequest("", "the body of the %s could not be read (%v); send it again", body.what, err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return badRequest("", "the body is empty; send a JSON %s: %s", body.what, body.shape)
	}
	if !json.Valid(data) {
		return body.malformed(data)
	}
	if d, ok := duplicateKey(data); ok {
		return d.refusal(body)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return body.refusal(err)
	}
	return nil
}

// malformed is the refusal of data that are not one JSON value.
func (b jsonBody) malformed(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err == nil {
		return badRequest("", "the body holds more than one JSON value; send one %s: %s", b.what, b.shape)
	}
	var x any
	err := json.Unmarshal(data, &x)
	detail := strings.TrimPrefix(fmt.Sprint(err), "json: ")
	var se *json.SyntaxError
	if errors.As(err, &se) && !strings.HasPrefix(detail, "unexpected end") {
		detail += fmt.Sprintf(" (at byte %d)", se.Offset) // the 1-based position of the byte
	}
	return badRequest("", "the body must be a JSON %s: %s; it is not: %s", b.what, b.shape, detail)
}

// refusal turns an error of decoding a valid JSON value into the body's
// refusal, naming the field.
func (b jsonBody) refusal(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field == "" {
			return badRequest("", "the body must be a JSON %s, an object: %s; it is %s", b.what, b.shape, article(te.Value))
		}
		return badRequest(te.Field, "the field %q of the %s must be %s, not %s", te.Field, b.what, te.Type, te.Value)
	}
	if msg := err.Error(); strings.HasPrefix(msg, "json: unknown field ") {
		field := strings.Trim(strings.TrimPrefix(msg, "json: unknown field "), `"`)
		if b.fields != "" {
			return badRequest(field, "unknown field %q in the %s; it takes %s", field, b.what, b.fields)
		}
		return badRequest(field, "unknown field %q in the %s", field, b.what)
	}
	return badRequest("", "the body must be a JSON %s: %s; %v", b.what, b.shape, err)
}

// article puts "a" or "an" before a JSON value's kind: "an array".
func article(kind string) string {
	if kind != "" && strings.ContainsRune("aeiou", rune(kind[0])) {
		return "an " + kind
	}
	return "a " + kind
}

// dupKey is a key that an object of a JSON body holds twice.
type dupKey struct {
	// path is where the object is, "" for the top, then the key as first
	// written: "evaluate.classifier", "rows[2].name".
	path string
	// first and second are the key as written the two times; they differ
	// when only their case does.
	first, second string
}

// refusal is the 400 of a key given twice, naming the key by its path.
func (d dupKey) refusal(body jsonBody) error {
	path := dataset.Cut(d.path)
	if d.first != d.second {
		return badRequest(path, "the key %q appears twice in the %s, as %q and %q (keys match whatever their case); give each key once",
			path, body.what, dataset.Cut(d.first), dataset.Cut(d.second))
	}
	return badRequest(path, "the key %q appears twice in the %s; give each key once", path, body.what)
}

// duplicateKey finds the first key that an object in data, valid JSON
// (json.Valid), holds twice. encoding/json keeps the last of them without
// a word, so a body could say two things and mean one. Keys are the same
// when encoding/json would match them to the same field of a struct:
// decoded (escapes, and invalid UTF-8 as U+FFFD) and compared without
// regard to case, as its foldName folds them; every body the API reads is
// a struct.
func duplicateKey(data []byte) (dupKey, bool) {
	var stack []jsonFrame
	expectKey := false
	for i := 0; i < len(data); {
		switch c := data[i]; c {
		case '{', '[':
			stack = append(stack, jsonFrame{object: c == '{'})
			expectKey = c == '{'
			i++
		case '}', ']':
			stack = stack[:len(stack)-1]
			expectKey = false // "{}" expected a key it did not get
			i++
		case ',':
			if top := &stack[len(stack)-1]; top.object {
				expectKey = true
			} else {
				top.index++
			}
			i++
		case '"':
			end := stringEnd(data, i)
			if expectKey {
				expectKey = false
				top := &stack[len(stack)-1]
				key := jsonString(data[i:end])
				folded := foldName(key)
				if first, ok := top.keys[folded]; ok {
					return dupKey{path: keyPath(stack[:len(stack)-1], first), first: first, second: key}, true
				}
				if top.keys == nil {
					top.keys = map[string]string{}
				}
				top.keys[folded] = key
				top.key = key
			}
			i = end
		default: // white space, ':', numbers, true, false, null
			i++
		}
	}
	return dupKey{}, false
}

// jsonFrame is an object or an array that duplicateKey is inside: the
// keys of an object's members (folded, to as written) and the member it is
// at, or the element an array is at.
type jsonFrame struct {
	object bool
	keys   map[string]string
	key    string
	index  int
}

// keyPath is the path of key in the object that outer, the containers
// around it from the top, lead to: "evaluate.classifier", "[2].name".
func keyPath(outer []jsonFrame, key string) string {
	var b strings.Builder
	for _, f := range outer {
		if !f.object {
			b.WriteString("[" + strconv.Itoa(f.index) + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(f.key)
	}
	if b.Len() > 0 {
		b.WriteByte('.')
	}
	b.WriteString(key)
	return b.String()
}

// stringEnd returns the offset just after the JSON string whose opening
// quote is data[i]; data is valid JSON.
func stringEnd(data []byte, i int) int {
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(data)
}

// jsonString decodes a JSON string, quotes included, as encoding/json
// does.
func jsonString(s []byte) string {
	if bytes.IndexByte(s, '\\') < 0 && utf8.Valid(s) {
		return string(s[1 : len(s)-1])
	}
	var v string
	_ = json.Unmarshal(s, &v) // valid JSON: no error
	return v
}

// foldName folds a key as encoding/json matches a key to a struct's
// field: ASCII letters to upper case, other runes to the smallest rune of
// their Unicode simple folding (so "K", "k" and the Kelvin sign are one).
func foldName(s string) string {
	b := make([]byte, 0, len(s))
	for _, r := range s {
		switch {
		case 'a' <= r && r <= 'z':
			r -= 'a' - 'A'
		case r >= utf8.RuneSelf:
			for {
				f := unicode.SimpleFold(r)
				if f <= r {
					r = f
					break
				}
				r = f
			}
		}
		b = utf8.AppendRune(b, r)
	}
	return string(b)
}
