package jsondup

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
)

// TestFind: the first key an object holds twice, at any depth,
// with its path; keys that encoding/json would match to one field of a
// struct (escapes decoded, case folded) count as the same.
func TestFind(t *testing.T) {
	for _, tc := range []struct {
		name, in            string
		path, first, second string // "" for none
	}{
		{"empty object", `{}`, "", "", ""},
		{"scalar", `1`, "", "", ""},
		{"array", `[1, "a", {"a": 1}]`, "", "", ""},
		{"a key again in another object", `{"a": 1, "b": {"a": 2}, "c": [{"a": 3}, {"a": 4}]}`, "", "", ""},
		{"keys alike but not the same", `{"dataset": 1, "datasets": 2, "data set": 3, "d": 4, "D_": 5}`, "", "", ""},
		{"strings that look like keys", `{"a": "\"a\": 1, }{", "b": ["a", "a"]}`, "", "", ""},
		{"strings after empty objects in an array", `[{}, "x", {}, "x", [], "x"]`, "", "", ""},
		{"strings after an empty object, nested", `{"a": [{"b": {}}, "k", {}, "k"]}`, "", "", ""},
		{"top level", `{"dataset": "A", "method": "pca", "dataset": "B"}`, "dataset", "dataset", "dataset"},
		{"nested", `{"evaluate": {"classifier": "ridge", "k": 3, "classifier": "svm"}}`, "evaluate.classifier", "classifier", "classifier"},
		{"an object twice", `{"params": {"d": 1}, "params": {"d": 2}}`, "params", "params", "params"},
		{"after a nested object", `{"a": {"b": 1, "c": [1, {"d": 2}]}, "b": 2, "a": 3}`, "a", "a", "a"},
		{"case", `{"dataset": "A", "Dataset": "B"}`, "dataset", "dataset", "Dataset"},
		{"an escape", `{"dataset": "A", "data\u0073et": "B"}`, "dataset", "dataset", "dataset"},
		{"the Kelvin sign", `{"split": {"kind": "kfold", "\u212aind": "none"}}`, "split.kind", "kind", "\u212aind"},
		{"in an array", `{"a": [{"x": 1}, {"y": 1, "x": 2, "y": 3}]}`, "a[1].y", "y", "y"},
		{"a top-level array", `[{"x": 1, "x": 2}]`, "[0].x", "x", "x"},
		{"arrays in arrays", `{"a": [[1], [{"y": 1, "Y": 2}]]}`, "a[1][0].y", "y", "Y"},
		{"invalid UTF-8, read as U+FFFD", "{\"\xff\": 1, \"\xfe\": 2}", "\ufffd", "\ufffd", "\ufffd"},
		{"white space", " {\n\t\"a\" :1 ,\r\n\"a\"\t: 2 } ", "a", "a", "a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !json.Valid([]byte(tc.in)) {
				t.Fatalf("the case is not valid JSON: %s", tc.in)
			}
			d, ok := Find([]byte(tc.in))
			if tc.path == "" {
				if ok {
					t.Errorf("got %+v, want no key twice", d)
				}
				return
			}
			if want := (Dup{Path: tc.path, First: tc.first, Second: tc.second, Offset: d.Offset}); !ok || d != want {
				t.Errorf("got %+v (found %v), want %+v", d, ok, want)
			}
			if second := jsonString([]byte(tc.in)[d.Offset:stringEnd([]byte(tc.in), d.Offset)]); second != tc.second {
				t.Errorf("at offset %d: got the key %q, want the second %q", d.Offset, second, tc.second)
			}
		})
	}
}

// FuzzFind checks Find on any valid JSON against
// encoding/json: it finds a key twice exactly when decoding into maps
// loses a key (the same key after decoding) or keeps two that fold to one
// (which a struct would take as one field). It never panics.
func FuzzFind(f *testing.F) {
	for _, s := range []string{
		`{}`, `[]`, `"x"`, `{"a":1,"a":2}`, `{"a":{"b":[{"c":1,"C":2}]}}`, `{"dataset":"a","Dataset":"b"}`,
		`{"k":1,"\u212a":2}`, `{"\u017f":1,"s":2}`, `[{"x":1},{"x":1}]`, `{"a":"\"}","b":[1,{"a":2}]}`,
		`{"dataset":"ML","method":"pca","evaluate":{"classifier":"ridge","classifier":"svm"}}`,
		`[{},"x",{},"x"]`, `{"a":[[],"k",{"b":{}},"k"]}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		data := []byte(s)
		if !json.Valid(data) {
			return
		}
		d, ok := Find(data)
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("encoding/json refuses valid JSON %q: %v", s, err)
		}
		keys, kept, folded := countKeys(t, data), 0, false
		walkObjects(v, func(m map[string]any) {
			kept += len(m)
			seen := map[string]bool{}
			for k := range m {
				f := foldName(k)
				folded = folded || seen[f]
				seen[f] = true
			}
		})
		if want := keys != kept || folded; ok != want {
			t.Fatalf("Find(%q): got %+v (found %v); encoding/json keeps %d of %d keys, two folding to one: %v", s, d, ok, kept, keys, folded)
		}
		if ok && (foldName(d.First) != foldName(d.Second) || !strings.HasSuffix(d.Path, d.First)) {
			t.Fatalf("Find(%q): got %+v, want two spellings of one key at the end of its path", s, d)
		}
	})
}

// countKeys counts the keys of every object in data, by encoding/json's
// tokens: a string that an object holds where a key goes.
func countKeys(t *testing.T, data []byte) int {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	type level struct{ object, key bool } // key: the next token is a key
	var stack []level
	n := 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return n
		}
		if err != nil {
			t.Fatalf("tokens of %q: %v", data, err)
		}
		atKey := len(stack) > 0 && stack[len(stack)-1].object && stack[len(stack)-1].key
		if len(stack) > 0 && stack[len(stack)-1].object {
			stack[len(stack)-1].key = !atKey
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, level{object: true, key: true})
		case json.Delim('['):
			stack = append(stack, level{})
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			if len(stack) > 0 && stack[len(stack)-1].object {
				stack[len(stack)-1].key = true // the value that closed was a member's
			}
		default:
			if atKey {
				n++
			}
		}
	}
}

// walkObjects calls visit with every object in v, a value encoding/json
// decoded into any.
func walkObjects(v any, visit func(map[string]any)) {
	switch v := v.(type) {
	case map[string]any:
		visit(v)
		for _, e := range v {
			walkObjects(e, visit)
		}
	case []any:
		for _, e := range v {
			walkObjects(e, visit)
		}
	}
}
