package dataset_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/dataset"
)

// stats lists every label's statistics from d.
func stats(d *dataset.Details) []dataset.LabelStat {
	out := make([]dataset.LabelStat, d.LabelCount())
	for j := range out {
		out[j] = d.Stat(j)
	}
	return out
}

// TestSummarize checks Describe on small data sets computed by hand.
func TestSummarize(t *testing.T) {
	t.Run("multilabel", func(t *testing.T) {
		// Label sets 100, 110, 000, 100: 4 labels over 4 rows, so the
		// cardinality is 1 and the density 1/3; 3 distinct sets; per-label
		// counts 3, 1, 0; the third label is constant.
		ds := mustLoad(t, "a,label:p,label:q,label:r\n1,1,0,0\n2,1,1,0\n3,0,0,0\n4,1,0,0\n", dataset.Options{})
		s, det := dataset.Describe(ds)
		if s.Rows != 4 || s.Features != 1 || s.Kind != dataset.MultiLabel || s.LabelCount != 3 || s.LabelOnes != 4 || s.ConstantLabels != 1 {
			t.Errorf("got %d rows, %d features, kind %q, %d labels, %d ones, %d constant; want 4, 1, %q, 3, 4, 1",
				s.Rows, s.Features, s.Kind, s.LabelCount, s.LabelOnes, s.ConstantLabels, dataset.MultiLabel)
		}
		checkStrings(t, "Labels", det.Labels.Strings(), []string{"p", "q", "r"})
		if want := dataset.NamesDigest(dataset.ListNames([]string{"p", "q", "r"})); s.LabelsDigest != want {
			t.Errorf("LabelsDigest: got %s, want %s", s.LabelsDigest, want)
		}
		if s.LabelCardinality == nil || *s.LabelCardinality != 1 {
			t.Errorf("LabelCardinality: got %v, want 1", deref(s.LabelCardinality))
		}
		if s.LabelDensity == nil || math.Abs(*s.LabelDensity-1.0/3) > 1e-15 {
			t.Errorf("LabelDensity: got %v, want 1/3", deref(s.LabelDensity))
		}
		if s.DistinctLabelsets != 3 {
			t.Errorf("DistinctLabelsets: got %d, want 3", s.DistinctLabelsets)
		}
		want := []dataset.LabelStat{
			{Name: "p", Count: 3, Frequency: 0.75},
			{Name: "q", Count: 1, Frequency: 0.25},
			{Name: "r", Count: 0, Frequency: 0, Constant: true},
		}
		if got := stats(det); !reflect.DeepEqual(got, want) {
			t.Errorf("label statistics: got %+v, want %+v", got, want)
		}
		if got := det.Top(3); !reflect.DeepEqual(got, []int{0, 1, 2}) {
			t.Errorf("Top(3): got %v, want [0 1 2]", got)
		}
		if len(s.Warnings) != 1 {
			t.Errorf("Warnings: got %q, want the constant-label warning", s.Warnings)
		}
	})
	t.Run("multidim", func(t *testing.T) {
		// c: a a b a c → a:3 b:1 c:1; d: 1 1 2 2 1 → 1:3 2:2; e: x everywhere
		// (constant). The rows (a,1,x) (a,1,x) (b,2,x) (a,2,x) (c,1,x) hold 4
		// distinct sets. Count is the size of the largest class.
		ds := mustLoad(t, "f,label:c,label:d,label:e\n1,a,1,x\n2,a,1,x\n3,b,2,x\n4,a,2,x\n5,c,1,x\n", dataset.Options{})
		s, det := dataset.Describe(ds)
		if s.Kind != dataset.MultiDim {
			t.Fatalf("Kind: got %q, want %q", s.Kind, dataset.MultiDim)
		}
		if s.Classes != 6 || s.MaxClasses != 3 || s.ConstantLabels != 1 {
			t.Errorf("Classes, MaxClasses, ConstantLabels: got %d, %d, %d; want 6, 3, 1", s.Classes, s.MaxClasses, s.ConstantLabels)
		}
		if got := s.ClassList(); len(got) != 3 || got[0]+got[1]+got[2] != 6 || slices.Max(got) != 3 {
			t.Errorf("ClassList: got %v, want 3 counts of sum 6 and largest 3", got)
		}
		if s.LabelCardinality != nil || s.LabelDensity != nil {
			t.Errorf("cardinality and density: got %v and %v, want nil for multi-dimensional data",
				deref(s.LabelCardinality), deref(s.LabelDensity))
		}
		if s.DistinctLabelsets != 4 {
			t.Errorf("DistinctLabelsets: got %d, want 4", s.DistinctLabelsets)
		}
		want := []dataset.LabelStat{
			{Name: "c", Count: 3, Frequency: 0.6, Classes: []dataset.ClassCount{{Value: "a", Count: 3}, {Value: "b", Count: 1}, {Value: "c", Count: 1}}},
			{Name: "d", Count: 3, Frequency: 0.6, Classes: []dataset.ClassCount{{Value: "1", Count: 3}, {Value: "2", Count: 2}}},
			{Name: "e", Count: 5, Frequency: 1, Constant: true, Classes: []dataset.ClassCount{{Value: "x", Count: 5}}},
		}
		if got := stats(det); !reflect.DeepEqual(got, want) {
			t.Errorf("label statistics: got %+v, want %+v", got, want)
		}
	})
	t.Run("no warnings is an empty list", func(t *testing.T) {
		s := dataset.Summarize(mustLoad(t, "a,label:y\n1,0\n2,1\n", dataset.Options{}))
		if s.Warnings == nil || len(s.Warnings) != 0 {
			t.Errorf("Warnings: got %#v, want an empty, non-nil list", s.Warnings)
		}
	})
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestSummarizeLargeQ: with q = 4 000 labels and about 10 a row, the
// distinct label sets are counted right and Summarize allocates with the
// labels present, not a key of q bytes a row (80 MB here).
func TestSummarizeLargeQ(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 20 000 × 4 000 label matrix")
	}
	const n, q = 20_000, 4_000
	rng := rand.New(rand.NewPCG(1, 1))
	y := mat.NewDense(n, q, nil)
	want := map[string]bool{}
	for i := range n {
		if i%2 == 1 { // every other row repeats the one before
			y.SetRow(i, y.RawRowView(i-1))
		} else {
			for range rng.IntN(20) {
				y.Set(i, int(float64(q)*rng.Float64()*rng.Float64()), 1)
			}
		}
		var ones []int
		for j, v := range y.RawRowView(i) {
			if v != 0 {
				ones = append(ones, j)
			}
		}
		want[fmt.Sprint(ones)] = true
	}
	names := make([]string, q)
	for j := range names {
		names[j] = fmt.Sprintf("l%d", j)
	}
	ds := &dataset.Dataset{Kind: dataset.MultiLabel, X: mat.NewDense(n, 1, nil), Labels: dataset.ListNames(names), Y: y}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	s := dataset.Summarize(ds)
	runtime.ReadMemStats(&after)
	if s.DistinctLabelsets != len(want) {
		t.Errorf("DistinctLabelsets: got %d, want %d", s.DistinctLabelsets, len(want))
	}
	if got, most := after.TotalAlloc-before.TotalAlloc, uint64(16<<20); got > most {
		t.Errorf("Summarize allocated %d bytes, want at most %d", got, most)
	}
}
