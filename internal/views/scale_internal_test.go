package views

import (
	"strings"
	"testing"

	"mldr/internal/dataset"
)

// TestScaleHint: a hand-made data set whose column a (standard deviation
// 1118) dwarfs b (0.5) gets the suggestion to standardize, naming both
// columns, on the form ("") and for a job that used the features as
// given ("none"), not for one that standardized or scaled them; data
// whose scales are comparable get none.
func TestScaleHint(t *testing.T) {
	load := func(csv string) dataset.Summary {
		d, err := dataset.Load(strings.NewReader(csv), dataset.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return dataset.Summarize(d)
	}
	wide := load("a,b,c,label:y\n0,0,7,1\n1000,1,7,0\n2000,0,7,1\n3000,1,7,0\n")
	even := load("a,b,label:y\n0,0,1\n10,1,0\n20,0,1\n30,1,0\n")
	tests := []struct {
		name string
		s    dataset.Summary
		pre  string
		want bool
	}{
		{"form", wide, "", true},
		{"job as given", wide, "none", true},
		{"job standardized", wide, "standardize", false},
		{"job min-max", wide, "minmax", false},
		{"comparable scales", even, "", false},
		{"no spread recorded", dataset.Summary{}, "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ScaleHint(tc.s, tc.pre)
			if (got != "") != tc.want {
				t.Fatalf("got %q, want a hint: %v", got, tc.want)
			}
			if tc.want {
				for _, w := range []string{"feature a varies 2 236 times as much as b", "preprocess: standardize"} {
					if !strings.Contains(got, w) {
						t.Errorf("got %q, want it to contain %q", got, w)
					}
				}
			}
		})
	}
}
