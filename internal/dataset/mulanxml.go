package dataset

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
)

// ParseLabelXML reads a Mulan XML label file
// (<labels xmlns="http://mulan.sourceforge.net/labels"><label name="…"/>…)
// and returns every label name, nested labels of a hierarchy included, in
// document order. Errors are *InputError with the line of the problem.
func ParseLabelXML(r io.Reader) ([]string, error) {
	dec := xml.NewDecoder(r)
	var names []string
	seen := make(map[string]bool)
	sawRoot := false
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var se *xml.SyntaxError
			if errors.As(err, &se) {
				return nil, &InputError{Line: se.Line, Field: "xml", Msg: "the label file is not valid XML: " + se.Msg}
			}
			return nil, &InputError{Field: "xml", Msg: fmt.Sprintf("the label file is not valid XML: %v", err)}
		}
		start, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		line, _ := dec.InputPos()
		switch start.Name.Local {
		case "labels":
			sawRoot = true
		case "label":
			name := ""
			for _, a := range start.Attr {
				if a.Name.Local == "name" {
					name = a.Value
				}
			}
			if name == "" {
				return nil, &InputError{Line: line, Field: "xml", Msg: "a <label> element has no name attribute"}
			}
			if seen[name] {
				return nil, &InputError{Line: line, Field: "xml", Msg: fmt.Sprintf("label %s is listed twice", quote(name))}
			}
			seen[name] = true
			names = append(names, name)
		}
	}
	if !sawRoot || len(names) == 0 {
		return nil, &InputError{Field: "xml", Msg: "the label file lists no labels: a Mulan label file is <labels><label name=\"…\"/>…</labels>"}
	}
	return names, nil
}
