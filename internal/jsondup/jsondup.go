// Package jsondup finds a key that an object of a JSON text holds twice,
// which encoding/json keeps the last of without a word, so that a text
// could say two things and mean one: the API's JSON bodies and webapp
// run's specs refuse it.
package jsondup

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Dup is a key that an object holds twice.
type Dup struct {
	// Path is where the object is, "" for the top, then the key as first
	// written: "evaluate.classifier", "rows[2].name".
	Path string
	// First and Second are the key as written the two times; they differ
	// when only their case does.
	First, Second string
	// Offset is the byte offset of the second key's opening quote.
	Offset int
}

// Find finds the first key that an object in data, valid JSON
// (json.Valid), holds twice. encoding/json keeps the last of them without
// a word, so a body could say two things and mean one. Keys are the same
// when encoding/json would match them to the same field of a struct:
// decoded (escapes, and invalid UTF-8 as U+FFFD) and compared without
// regard to case, as its foldName folds them; every body the API reads
// (and every spec) is a struct. data must be valid JSON (json.Valid).
func Find(data []byte) (Dup, bool) {
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
					return Dup{Path: keyPath(stack[:len(stack)-1], first), First: first, Second: key, Offset: i}, true
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
	return Dup{}, false
}

// jsonFrame is an object or an array that Find is inside: the
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
