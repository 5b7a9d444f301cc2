package dataset

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Names are the ordered names of a data set's feature or label columns.
// They are held as a list, or, for a file that numbers its columns
// instead of naming them (libsvm), as a rule: name i is a prefix and a
// number, the numbers either consecutive from a first one (nothing held
// per name) or listed (4 bytes a name). So a file that declares two
// million features, or uses label 1 999 999 once, costs no string per
// column it does not hold.
//
// The zero value holds no names. Names are values: copies share the list.
type Names struct {
	list   []string
	prefix string
	first  int     // numbered: name i is prefix + (first + i), when nums is nil
	nums   []int32 // numbered by a list: name i is prefix + nums[i]
	n      int
	rule   bool // numbered (first or nums), not listed
}

// ListNames are the names in s (not copied).
func ListNames(s []string) Names { return Names{list: s, n: len(s)} }

// NumberedNames are n names prefix+first, prefix+(first+1), ….
func NumberedNames(prefix string, first, n int) Names {
	return Names{prefix: prefix, first: first, n: n, rule: true}
}

// NumberedAs are the names prefix+nums[0], prefix+nums[1], … (nums not
// copied; the numbers must be distinct and non-negative).
func NumberedAs(prefix string, nums []int32) Names {
	return Names{prefix: prefix, nums: nums, n: len(nums), rule: true}
}

// Len is the number of names.
func (n Names) Len() int { return n.n }

// At is name i, 0 ≤ i < Len().
func (n Names) At(i int) string {
	if i < 0 || i >= n.n {
		panic(fmt.Sprintf("dataset: name %d of %d", i, n.n))
	}
	switch {
	case !n.rule:
		return n.list[i]
	case n.nums != nil:
		return n.prefix + strconv.Itoa(int(n.nums[i]))
	}
	return n.prefix + strconv.Itoa(n.first+i)
}

// Numbered reports whether the names are a rule (prefix and number)
// rather than a list.
func (n Names) Numbered() bool { return n.rule }

// Strings returns every name as a new list (or the list itself, for
// listed names: do not change it). It costs a string a name: callers
// that may meet numbered names of a hostile file take Head instead.
func (n Names) Strings() []string {
	if !n.rule {
		return n.list
	}
	out := make([]string, n.n)
	for i := range out {
		out[i] = n.At(i)
	}
	return out
}

// Head returns the first k names (all when fewer).
func (n Names) Head(k int) []string {
	k = min(max(k, 0), n.n)
	if !n.rule {
		return n.list[:k]
	}
	out := make([]string, k)
	for i := range out {
		out[i] = n.At(i)
	}
	return out
}

// Range returns the names i with from ≤ i < to, clipped to [0, Len()).
func (n Names) Range(from, to int) []string {
	from, to = min(max(from, 0), n.n), min(max(to, 0), n.n)
	if to <= from {
		return []string{}
	}
	if !n.rule {
		return n.list[from:to]
	}
	out := make([]string, to-from)
	for i := range out {
		out[i] = n.At(from + i)
	}
	return out
}

// Index returns the position of name, or -1. It scans a list (see
// Lookup for many names); a numbered name is found by its number.
func (n Names) Index(name string) int {
	if !n.rule {
		return slices.Index(n.list, name)
	}
	k, ok := n.number(name)
	if !ok {
		return -1
	}
	if n.nums == nil {
		if i := k - n.first; i >= 0 && i < n.n {
			return i
		}
		return -1
	}
	return slices.Index(n.nums, int32(k))
}

// number reads the number of a name prefix+k written as At writes it.
func (n Names) number(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, n.prefix)
	if !ok || rest == "" || len(rest) > 10 || (len(rest) > 1 && rest[0] == '0') {
		return 0, false
	}
	k, err := strconv.Atoi(rest)
	if err != nil || k < 0 || rest[0] == '+' || k > 1<<31-1 {
		return 0, false
	}
	return k, true
}

// Lookup returns a function that finds names as Index does, in constant
// time after a map of the names is made once (numbered names consecutive
// from a first need none).
func (n Names) Lookup() func(name string) int {
	if n.rule && n.nums == nil {
		return n.Index
	}
	at := make(map[string]int, n.n)
	if !n.rule {
		for i, s := range n.list {
			if _, dup := at[s]; !dup {
				at[s] = i
			}
		}
		return func(name string) int {
			if i, ok := at[name]; ok {
				return i
			}
			return -1
		}
	}
	pos := make(map[int32]int, n.n)
	for i, k := range n.nums {
		pos[k] = i
	}
	return func(name string) int {
		k, ok := n.number(name)
		if !ok {
			return -1
		}
		if i, ok := pos[int32(k)]; ok {
			return i
		}
		return -1
	}
}

// Equal reports whether n and m are the same names in the same order.
func (n Names) Equal(m Names) bool {
	if n.n != m.n {
		return false
	}
	if n.rule && m.rule && n.prefix == m.prefix {
		switch {
		case n.nums == nil && m.nums == nil:
			return n.first == m.first || n.n == 0
		case n.nums != nil && m.nums != nil:
			return slices.Equal(n.nums, m.nums)
		}
	}
	if !n.rule && !m.rule {
		return slices.Equal(n.list, m.list)
	}
	for i := range n.n {
		if n.At(i) != m.At(i) {
			return false
		}
	}
	return true
}

// Select returns the names at the positions idx, in that order.
func (n Names) Select(idx []int) Names {
	if n.rule && n.nums == nil {
		nums := make([]int32, len(idx))
		for k, i := range idx {
			nums[k] = int32(n.first + i)
		}
		return NumberedAs(n.prefix, nums)
	}
	if n.rule {
		nums := make([]int32, len(idx))
		for k, i := range idx {
			nums[k] = n.nums[i]
		}
		return NumberedAs(n.prefix, nums)
	}
	out := make([]string, len(idx))
	for k, i := range idx {
		out[k] = n.list[i]
	}
	return ListNames(out)
}

// Bytes estimates the memory the names hold.
func (n Names) Bytes() int64 {
	if n.rule {
		return int64(4*len(n.nums)) + int64(len(n.prefix))
	}
	b := int64(24 * len(n.list))
	for _, s := range n.list {
		b += int64(len(s))
	}
	return b
}

// namesJSON is the JSON form of numbered names; listed names are a JSON
// array of strings.
type namesJSON struct {
	Prefix  string  `json:"prefix"`
	First   int     `json:"first"`
	Count   int     `json:"count"`
	Numbers []int32 `json:"numbers,omitempty"`
}

// MarshalJSON writes listed names as an array of strings and numbered
// ones as {"prefix", "first", "count"} or {"prefix", "numbers"}, so that
// numbered names stay small in a stored header.
func (n Names) MarshalJSON() ([]byte, error) {
	if !n.rule {
		if n.list == nil {
			return []byte("[]"), nil
		}
		return json.Marshal(n.list)
	}
	j := namesJSON{Prefix: n.prefix, Count: n.n, Numbers: n.nums}
	if n.nums == nil {
		j.First = n.first
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes (and null, as no names).
func (n *Names) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) > 0 && b[0] == '[':
		var s []string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*n = ListNames(s)
		return nil
	case bytes.Equal(b, []byte("null")):
		*n = Names{}
		return nil
	}
	var j namesJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	switch {
	case j.Numbers != nil:
		if j.Count != len(j.Numbers) {
			return fmt.Errorf("numbered names: count %d but %d numbers", j.Count, len(j.Numbers))
		}
		for _, k := range j.Numbers {
			if k < 0 {
				return fmt.Errorf("numbered names: negative number %d", k)
			}
		}
		*n = NumberedAs(j.Prefix, j.Numbers)
	case j.Count < 0 || j.First < 0 || j.First > 1<<31-1-j.Count:
		return fmt.Errorf("numbered names: count %d from %d", j.Count, j.First)
	default:
		*n = NumberedNames(j.Prefix, j.First, j.Count)
	}
	return nil
}

// String lists the first names, for messages: "[a b c]", or
// "[f1 f2 … f2000000] (2000000 names)".
func (n Names) String() string {
	if n.n <= 10 {
		return fmt.Sprint(n.Head(10))
	}
	return fmt.Sprintf("[%s … %s] (%d names)", strings.Join(n.Head(5), " "), n.At(n.n-1), n.n)
}
