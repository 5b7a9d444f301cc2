package dataset_test

import (
	"os"
	"strings"
	"testing"

	"mldr/internal/dataset"
)

// TestParseLabelXML checks Mulan label files, flat and hierarchical.
func TestParseLabelXML(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"flat, namespaced",
			`<?xml version="1.0" encoding="utf-8"?>` + "\n" +
				`<labels xmlns="http://mulan.sourceforge.net/labels"><label name="b"></label><label name="a"/></labels>`,
			[]string{"b", "a"}},
		{"no namespace, attributes in any order",
			`<labels><label id="1" name="x"/><label name="y z" id="2"/></labels>`,
			[]string{"x", "y z"}},
		{"prefixed namespace",
			`<m:labels xmlns:m="http://mulan.sourceforge.net/labels"><m:label name="p"/></m:labels>`,
			[]string{"p"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := dataset.ParseLabelXML(strings.NewReader(tc.in))
			if err != nil {
				t.Fatalf("got error %q, want none", err)
			}
			checkStrings(t, "labels", got, tc.want)
		})
	}
	t.Run("hierarchy in document order", func(t *testing.T) {
		f, err := os.Open("testdata/hierarchy.xml")
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		got, err := dataset.ParseLabelXML(f)
		if err != nil {
			t.Fatalf("got error %q, want none", err)
		}
		checkStrings(t, "labels", got, []string{"Arts", "Arts/Music", "Arts/Film", "Arts/Film/Noir", "Science & Nature"})
	})
}

// TestParseLabelXMLRefuses checks that bad label files give an *InputError
// for the xml option, with the line where one applies.
func TestParseLabelXMLRefuses(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want inputErr
	}{
		{"empty", "", inputErr{Field: "xml", Msg: "the label file lists no labels"}},
		{"no labels", `<labels xmlns="http://mulan.sourceforge.net/labels">` + "\n</labels>\n",
			inputErr{Field: "xml", Msg: "the label file lists no labels"}},
		{"labels without root", `<other><label name="a"/></other>`,
			inputErr{Field: "xml", Msg: "the label file lists no labels"}},
		{"malformed", "<labels>\n<label name=\"a\">\n<label name=\"b\">\n</labels>\n",
			inputErr{Line: 4, Field: "xml", Msg: "the label file is not valid XML"}},
		{"unclosed at the end", "<labels>\n<label name=\"a\"/>\n",
			inputErr{Line: 3, Field: "xml", Msg: "the label file is not valid XML"}},
		{"not XML", "a,b,label:c\n1,2,0\n", inputErr{Field: "xml", Msg: "the label file lists no labels"}},
		{"duplicate label", "<labels>\n<label name=\"a\"/>\n<label name=\"b\">\n<label name=\"a\"/>\n</label>\n</labels>\n",
			inputErr{Line: 4, Field: "xml", Msg: `label "a" is listed twice`}},
		{"label without name", "<labels>\n<label name=\"a\"/>\n<label title=\"b\"/>\n</labels>\n",
			inputErr{Line: 3, Field: "xml", Msg: "a <label> element has no name attribute"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := dataset.ParseLabelXML(strings.NewReader(tc.in))
			if err == nil {
				t.Fatalf("got labels %q, want an error", got)
			}
			checkInputError(t, err, tc.want)
		})
	}
}
