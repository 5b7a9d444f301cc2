package templates

import "testing"

func TestRankText(t *testing.T) {
	for _, tc := range []struct {
		rank    int
		atLeast bool
		want    string
	}{
		{14, false, "14"},
		{10, true, "≥ 10"},
	} {
		if got := rankText(tc.rank, tc.atLeast); got != tc.want {
			t.Errorf("rankText(%d, %v): got %q, want %q", tc.rank, tc.atLeast, got, tc.want)
		}
	}
}
