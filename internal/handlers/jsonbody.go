package handlers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"mldr/internal/dataset"
	"mldr/internal/jsondup"
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
	if d, ok := jsondup.Find(data); ok {
		return body.duplicate(d)
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

// duplicate is the 400 of a key given twice (jsondup.Find), naming the
// key by its path.
func (b jsonBody) duplicate(d jsondup.Dup) error {
	path := dataset.Cut(d.Path)
	if d.First != d.Second {
		return badRequest(path, "the key %q appears twice in the %s, as %q and %q (keys match whatever their case); give each key once",
			path, b.what, dataset.Cut(d.First), dataset.Cut(d.Second))
	}
	return badRequest(path, "the key %q appears twice in the %s; give each key once", path, b.what)
}
