// Package xcdata generates data sets shaped like those of the Extreme
// Classification Repository (Bhatia et al., "The extreme classification
// repository: multi-label datasets and code",
// http://manikvarma.org/downloads/XC/XMLRepository.html), in its text
// format, for benchmarks that need their size without their download.
//
// A generated set has the repository's rows, features and labels, about
// its mean labels and non-zero features a row, power-law label
// frequencies with a long tail of labels that only 1–5 rows have,
// tf-idf-like positive features on Zipf-distributed columns, each row
// L2-normalised, and labels that the features reveal: each label has a
// few topic columns that its rows tend to hold. It is written a row at a
// time: the generator holds O(D + q) numbers, never a matrix.
package xcdata

import (
	"fmt"
	"math"
	"strings"
)

// Shape is the size of one data set of the repository: its rows (training
// and test), features and labels, and its mean labels and non-zero
// features a row (of the training rows).
type Shape struct {
	// Name is the set's name as Lookup takes it ("eurlex-4k").
	Name string
	// Train and Test are the rows of the training and the test file.
	Train, Test int
	// Features and Labels are D and q, the file header's counts.
	Features, Labels int
	// LabelsPerRow is the mean number of labels a row has.
	LabelsPerRow float64
	// FeaturesPerRow is the mean number of non-zero features a row has;
	// with Dense every row has all Features.
	FeaturesPerRow float64
	// Dense marks a set whose rows have every feature (Mediamill).
	Dense bool
}

// Shapes lists the repository's sets that the generator imitates, as its
// page gives them (rows train + test × features × labels; mean labels and
// non-zero features a row): Bibtex, Delicious, Mediamill, EURLex-4K,
// Wiki10-31K and AmazonCat-13K.
func Shapes() []Shape {
	return []Shape{
		{Name: "bibtex", Train: 4_880, Test: 2_515, Features: 1_836, Labels: 159, LabelsPerRow: 2.4, FeaturesPerRow: 69},
		{Name: "delicious", Train: 12_920, Test: 3_185, Features: 500, Labels: 983, LabelsPerRow: 19.0, FeaturesPerRow: 18},
		{Name: "mediamill", Train: 30_993, Test: 12_914, Features: 120, Labels: 101, LabelsPerRow: 4.4, FeaturesPerRow: 120, Dense: true},
		{Name: "eurlex-4k", Train: 15_539, Test: 3_809, Features: 5_000, Labels: 3_993, LabelsPerRow: 5.3, FeaturesPerRow: 236},
		{Name: "wiki10-31k", Train: 14_146, Test: 6_616, Features: 101_938, Labels: 30_938, LabelsPerRow: 18.6, FeaturesPerRow: 673},
		{Name: "amazoncat-13k", Train: 1_186_239, Test: 306_782, Features: 203_882, Labels: 13_330, LabelsPerRow: 5.0, FeaturesPerRow: 71},
	}
}

// Lookup returns the shape of the named set (case does not matter). An
// unknown name is an error that lists the known ones.
func Lookup(name string) (Shape, error) {
	var names []string
	for _, s := range Shapes() {
		if strings.EqualFold(s.Name, name) {
			return s, nil
		}
		names = append(names, s.Name)
	}
	return Shape{}, fmt.Errorf("xcdata: %q is not a data set of the generator; choose among %s", name, strings.Join(names, ", "))
}

// Scaled returns s with its training and test rows multiplied by f
// (rounded, at least 1 each); features, labels and the means a row are
// kept, so that a quick run keeps the label space's width. f must be in
// (0, 1].
func (s Shape) Scaled(f float64) (Shape, error) {
	if !(f > 0 && f <= 1) {
		return s, fmt.Errorf("xcdata: the scale %v is not in (0, 1]", f)
	}
	s.Train = max(1, int(math.Round(float64(s.Train)*f)))
	s.Test = max(1, int(math.Round(float64(s.Test)*f)))
	return s, nil
}

// String is the shape as the repository's page gives it:
// "15539 + 3809 × 5000 × 3993".
func (s Shape) String() string {
	return fmt.Sprintf("%d + %d × %d × %d", s.Train, s.Test, s.Features, s.Labels)
}
