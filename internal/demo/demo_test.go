package demo

import (
	"bytes"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"mldr/internal/dataset"
)

func load(t *testing.T, id string, seed uint64) *dataset.Dataset {
	t.Helper()
	set, err := Make(id, seed)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := dataset.Load(bytes.NewReader(set.CSV), dataset.Options{})
	if err != nil {
		t.Fatalf("the demo %s does not load: %v", id, err)
	}
	return ds
}

func TestDemoSetsLoad(t *testing.T) {
	for _, tc := range []struct {
		id             string
		kind           dataset.Kind
		rows, features int
		labels         int
	}{
		{"multilabel", dataset.MultiLabel, 600, 24, 6},
		{"multidim", dataset.MultiDim, 400, 10, 3},
	} {
		ds := load(t, tc.id, Seed)
		n, d := ds.X.Dims()
		if ds.Kind != tc.kind || n != tc.rows || d != tc.features || ds.Labels.Len() != tc.labels {
			t.Errorf("%s: got %v %d×%d with %d labels", tc.id, ds.Kind, n, d, ds.Labels.Len())
		}
		if len(ds.Warnings) != 0 {
			t.Errorf("%s: got warnings %q", tc.id, ds.Warnings)
		}
		_, det := dataset.Describe(ds)
		for j := range det.LabelCount() {
			l := det.Stat(j)
			if l.Constant || l.Frequency < 0.1 {
				t.Errorf("%s: label %s has frequency %.2f", tc.id, l.Name, l.Frequency)
			}
		}
	}
	if _, err := Make("nope", 1); err == nil {
		t.Error("Make(nope): got no error")
	}
}

func TestDemoIsSeeded(t *testing.T) {
	a, _ := Make("multilabel", Seed)
	b, _ := Make("multilabel", Seed)
	c, _ := Make("multilabel", Seed+1)
	if !bytes.Equal(a.CSV, b.CSV) {
		t.Error("the same seed gave different data")
	}
	if bytes.Equal(a.CSV, c.CSV) {
		t.Error("another seed gave the same data")
	}
}

// The labels are correlated as designed (beach with sea; mountain against
// urban), and the informative features carry label information that the
// noise features do not.
func TestDemoStructure(t *testing.T) {
	ds := load(t, "multilabel", Seed)
	col := func(m *mat.Dense, j int) []float64 { return mat.Col(nil, j, m) }
	idx := map[string]int{}
	for j, l := range ds.Labels.Strings() {
		idx[l] = j
	}
	if r := stat.Correlation(col(ds.Y, idx["beach"]), col(ds.Y, idx["sea"]), nil); r < 0.3 {
		t.Errorf("beach and sea: correlation %.2f, want > 0.3", r)
	}
	if r := stat.Correlation(col(ds.Y, idx["mountain"]), col(ds.Y, idx["urban"]), nil); r > -0.2 {
		t.Errorf("mountain and urban: correlation %.2f, want < -0.2", r)
	}
	best := func(prefix string) float64 {
		m := 0.0
		for f, name := range ds.Features.Strings() {
			if name[:len(prefix)] != prefix {
				continue
			}
			for j := range ds.Labels.Strings() {
				m = math.Max(m, math.Abs(stat.Correlation(col(ds.X, f), col(ds.Y, j), nil)))
			}
		}
		return m
	}
	if sig, noise := best("sig"), best("noise"); sig < 0.4 || noise > 0.15 {
		t.Errorf("strongest feature–label correlation: informative %.2f (want > 0.4), noise %.2f (want < 0.15)", sig, noise)
	}
}
