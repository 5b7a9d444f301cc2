package dataset

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// labelChoice is the outcome of choosing label columns from a header.
type labelChoice struct {
	isLabel []bool
	// how says, for a warning or the summary, where the choice came from.
	how string
}

var mekaC = regexp.MustCompile(`(?:^|\s)-C\s+(-?\d+)`)

// mekaLabelCount reads MEKA's "-C n" from an ARFF @relation name.
func mekaLabelCount(relation string) (int, bool) {
	m := mekaC.FindStringSubmatch(relation)
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	if err != nil || n == 0 {
		return 0, false
	}
	return n, true
}

// chooseLabels picks the label columns among names following Options' order
// of precedence. relation is the ARFF @relation name ("" for CSV).
func chooseLabels(names []string, o Options, relation string) (labelChoice, error) {
	c := labelChoice{isLabel: make([]bool, len(names))}
	index := make(map[string]int, len(names))
	for i, n := range names {
		index[n] = i
	}
	byName := func(field string, wanted []string) error {
		for _, w := range wanted {
			i, ok := index[w]
			if !ok {
				i, ok = index[o.prefix()+w]
			}
			if !ok {
				return optionError(field, "%s names column %s, which the file does not have%s", field, quote(w), suggest(w, names))
			}
			if c.isLabel[i] {
				return optionError(field, "%s names column %s twice", field, quote(names[i]))
			}
			c.isLabel[i] = true
		}
		return nil
	}
	switch {
	case len(o.Labels) > 0:
		if err := byName("labels", o.Labels); err != nil {
			return c, err
		}
		c.how = "the labels option"
	case o.LabelCount != 0:
		n := o.LabelCount
		if abs(n) >= len(names) {
			return c, optionError("label_count", "label_count %d leaves no feature column: the file has %d columns", n, len(names))
		}
		if err := takeCount(c.isLabel, n); err != nil {
			return c, err
		}
		c.how = fmt.Sprintf("label_count %d", n)
	case len(o.LabelXML) > 0:
		if err := byName("xml", o.LabelXML); err != nil {
			return c, err
		}
		c.how = "the Mulan XML label file"
	default:
		p := o.prefix()
		for i, n := range names {
			if strings.HasPrefix(n, p) {
				c.isLabel[i] = true
			}
		}
		c.how = fmt.Sprintf("the column prefix %s", quote(p))
		if count(c.isLabel) > 0 {
			break
		}
		if n, ok := mekaLabelCount(relation); ok && abs(n) < len(names) {
			_ = takeCount(c.isLabel, n)
			which := "first"
			if n < 0 {
				which = "last"
			}
			c.how = fmt.Sprintf("MEKA's \"-C %d\" in @relation (the %s %d attributes)", n, which, abs(n))
			break
		}
		return c, &InputError{Field: "labels", Msg: fmt.Sprintf(
			"no label column found: no column name starts with %s. Name the label columns with that prefix, "+
				"or choose them with labels (names), label_count (MEKA's convention) or, for ARFF, a Mulan XML file", quote(p))}
	}
	if count(c.isLabel) == len(names) {
		return c, optionError("labels", "every column is a label: at least one feature column is needed")
	}
	return c, nil
}

func takeCount(isLabel []bool, n int) error {
	if n > 0 {
		for i := range n {
			isLabel[i] = true
		}
	} else {
		for i := len(isLabel) + n; i < len(isLabel); i++ {
			isLabel[i] = true
		}
	}
	return nil
}

func count(b []bool) int {
	n := 0
	for _, v := range b {
		if v {
			n++
		}
	}
	return n
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// suggest names a column that differs from w only in case or surrounding
// spaces, to help a user who mistyped a name.
func suggest(w string, names []string) string {
	lw := strings.ToLower(strings.TrimSpace(w))
	for _, n := range names {
		if strings.ToLower(strings.TrimSpace(n)) == lw {
			return fmt.Sprintf(" (did you mean %s?)", quote(n))
		}
	}
	return ""
}

// binaryValue maps a label token to 0 or 1 and the families of binary codes it
// belongs to: bit 0 numeric 0/1, bit 1 numeric ±1, bit 2 true/false, bit 3
// yes/no. A column is binary when one family holds all its tokens.
func binaryValue(tok string) (v float64, families uint8) {
	switch strings.ToLower(tok) {
	case "true":
		return 1, 1 << 2
	case "false":
		return 0, 1 << 2
	case "yes":
		return 1, 1 << 3
	case "no":
		return 0, 1 << 3
	}
	f, ok := numberValue(tok)
	if !ok {
		return 0, 0
	}
	switch f {
	case 0:
		return 0, 1 << 0
	case 1:
		return 1, 1<<0 | 1<<1
	case -1:
		return 0, 1 << 1
	}
	return 0, 0
}
