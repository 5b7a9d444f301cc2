package analysis

import (
	"regexp"
	"testing"
)

// TestCiteKey: every method has a key a \cite takes, and methods that
// share a key cite the same paper (their Paper texts differ only in the equation or section).
func TestCiteKey(t *testing.T) {
	safe := regexp.MustCompile(`^[a-z0-9]+$`)
	first := map[string]Method{}
	for _, m := range Methods() {
		k := m.CiteKey()
		if !safe.MatchString(k) {
			t.Errorf("%s: key %q, want lower-case letters and digits", m.ID, k)
			continue
		}
		if o, ok := first[k]; ok && paperTitle(o.Paper) != paperTitle(m.Paper) {
			t.Errorf("%s and %s share key %q but cite %q and %q", o.ID, m.ID, k, o.Paper, m.Paper)
		}
		first[k] = m
	}
	if k := (Method{ID: "nope"}).CiteKey(); k != "" {
		t.Errorf("an unknown method's key = %q, want none", k)
	}
}

// paperTitle is Paper without its place in the paper (", eq. 3–4",
// ", §2.2", ", algorithm 1").
func paperTitle(p string) string {
	return regexp.MustCompile(`, (eq\. |§|algorithm ).*$`).ReplaceAllString(p, "")
}
