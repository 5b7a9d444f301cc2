package explore

import (
	"slices"
	"strings"
	"testing"

	"mldr/internal/dataset"
)

// testView is a view of five multi-label rows numbered 1…5.
func testView() *View {
	v := &View{Kind: dataset.MultiLabel, Names: []string{"amazed-suprised", "quiet still", "sad"}, TrainRows: 5,
		parts: []string{"all"}, at: make([]int32, 6), labels: &Labels{Start: []int32{0}}}
	v.labels.Names = v.Names
	for i, has := range [][]int32{{0, 1}, {0, 1, 2}, {1}, {0}, {}} {
		v.Number = append(v.Number, int32(i+1))
		v.part = append(v.part, 0)
		v.at[i+1] = int32(i + 1)
		v.labels.Index = append(v.labels.Index, has...)
		v.labels.Start = append(v.labels.Start, int32(len(v.labels.Index)))
	}
	return v
}

func TestSearch(t *testing.T) {
	v := testView()
	for _, tc := range []struct {
		q    string
		want []int
	}{
		{"amazed-suprised and quiet still but not sad", []int{0}},
		{"amazed-suprised & !sad", []int{0, 3}},
		{"AMAZED-SUPRISED, quiet still", []int{0, 1}},
		{"not amazed-suprised", []int{2, 4}},
		{"3", []int{2}},
		{"row 2, 4-5", []int{1, 3, 4}},
		{"5-4", []int{3, 4}},
		{"9", nil},
	} {
		got, err := v.Search(tc.q)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%q: got %v, %v, want %v", tc.q, got, err, tc.want)
		}
	}
	for _, tc := range []struct{ q, says string }{
		{"", "give a query"},
		{"happy", `"happy" is no label of this job; they are amazed-suprised, quiet still, sad`},
		{"3, x", `"x" is not a row number`},
		{"sad and not", `"not" must come before a label`},
	} {
		if _, err := v.Search(tc.q); err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%q: got %v, want an error saying %q", tc.q, err, tc.says)
		}
	}
}
