package dataset_test

import (
	"encoding/json"
	"slices"
	"testing"

	"mldr/internal/dataset"
)

// TestNames checks each way of holding names against the list it stands
// for: At, Index, Lookup, Head, Range, Select, Strings, Equal, and the
// JSON form, which reads back (and reads the old form, a list).
func TestNames(t *testing.T) {
	for _, tc := range []struct {
		name  string
		names dataset.Names
		want  []string
		json  string
	}{
		{"listed", dataset.ListNames([]string{"a", "b,c", "a"}), []string{"a", "b,c", "a"}, `["a","b,c","a"]`},
		{"empty", dataset.Names{}, []string{}, `[]`},
		{"numbered from 1", dataset.NumberedNames("f", 1, 4), []string{"f1", "f2", "f3", "f4"}, `{"prefix":"f","first":1,"count":4}`},
		{"numbered from 0", dataset.NumberedNames("l", 0, 3), []string{"l0", "l1", "l2"}, `{"prefix":"l","first":0,"count":3}`},
		{"numbered as listed", dataset.NumberedAs("l", []int32{5, 1999999, 0}), []string{"l5", "l1999999", "l0"}, `{"prefix":"l","first":0,"count":3,"numbers":[5,1999999,0]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := tc.names
			if n.Len() != len(tc.want) {
				t.Fatalf("Len: got %d, want %d", n.Len(), len(tc.want))
			}
			checkStrings(t, "Strings", n.Strings(), tc.want)
			checkStrings(t, "Head(2)", n.Head(2), tc.want[:min(2, len(tc.want))])
			checkStrings(t, "Range(1, 9)", n.Range(1, 9), tc.want[min(1, len(tc.want)):])
			look := n.Lookup()
			for i, w := range tc.want {
				if n.At(i) != w {
					t.Errorf("At(%d): got %q, want %q", i, n.At(i), w)
				}
				first := slices.Index(tc.want, w)
				if got := n.Index(w); got != first {
					t.Errorf("Index(%q): got %d, want %d", w, got, first)
				}
				if got := look(w); got != first {
					t.Errorf("Lookup(%q): got %d, want %d", w, got, first)
				}
			}
			for _, absent := range []string{"", "x", "f", "f01", "f+1", "f9", "l3", "l-1", "f99999999999"} {
				if slices.Contains(tc.want, absent) {
					continue
				}
				if got, got2 := n.Index(absent), look(absent); got != -1 || got2 != -1 {
					t.Errorf("Index, Lookup(%q): got %d, %d, want -1", absent, got, got2)
				}
			}
			if len(tc.want) > 1 {
				checkStrings(t, "Select", n.Select([]int{1, 0}).Strings(), []string{tc.want[1], tc.want[0]})
			}
			b, err := json.Marshal(n)
			if err != nil || string(b) != tc.json {
				t.Errorf("MarshalJSON: got %s, %v; want %s", b, err, tc.json)
			}
			var back dataset.Names
			if err := json.Unmarshal(b, &back); err != nil || !back.Equal(n) || back.Numbered() != n.Numbered() {
				t.Errorf("UnmarshalJSON: got %v (numbered %v), %v; want %v", back, back.Numbered(), err, n)
			}
			if !n.Equal(dataset.ListNames(tc.want)) || !dataset.ListNames(tc.want).Equal(n) {
				t.Errorf("Equal: got false against the list %q", tc.want)
			}
		})
	}
	for _, bad := range []string{`{"prefix":"f","first":-1,"count":3}`, `{"prefix":"f","count":-3}`, `{"prefix":"l","count":2,"numbers":[1]}`,
		`{"prefix":"l","count":1,"numbers":[-4]}`, `{"prefix":"f","first":2147483600,"count":100}`, `"f1"`} {
		var n dataset.Names
		if err := json.Unmarshal([]byte(bad), &n); err == nil {
			t.Errorf("UnmarshalJSON(%s): got %v, want an error", bad, n)
		}
	}
	if dataset.NumberedNames("f", 1, 3).Equal(dataset.NumberedNames("f", 0, 3)) {
		t.Error("Equal: f1…f3 and f0…f2 are equal, want not")
	}
}
