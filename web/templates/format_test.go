package templates

import (
	"testing"

	"mldr/internal/dataset"
)

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

func TestStorageText(t *testing.T) {
	for _, tc := range []struct {
		s    dataset.Summary
		want string
	}{
		{dataset.Summary{Rows: 10000, Features: 10000, Storage: dataset.StorageSparse, Density: 0.02}, "2.0 % of 100 000 000 cells are non-zero"},
		{dataset.Summary{Rows: 1000, Features: 1000, Storage: dataset.StorageSparse, Density: 0.00035}, "0.035 % of 1 000 000 cells are non-zero"},
		{dataset.Summary{Rows: 3, Features: 2, Storage: dataset.StorageDense, Density: 1}, "100.0 % of 6 cells are non-zero"},
		{dataset.Summary{Rows: 3, Features: 2}, ""}, // a record made before storage was recorded
	} {
		if got := storageText(tc.s); got != tc.want {
			t.Errorf("storageText(%+v): got %q, want %q", tc.s, got, tc.want)
		}
	}
}
