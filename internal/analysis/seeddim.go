package analysis

import (
	"fmt"
	"slices"
)

// seedDimMethods are the methods seed 003 (SDeM, Jia & Zhang, Sci Sin
// Inform 2023, §4.1) compares at one reduced dimension.
var seedDimMethods = []string{"sdem", "pca", "mds"}

// SeedDim is the reduced dimension seed 003 keeps for SDeM, PCA and MDS
// on multi-dimensional data, d′ = ΣK_j − q for the K_j classes of its q
// class variables ("for a fair comparison SDeM, PCA and MDS keep the same
// dimension, d′ = ΣK_j − q", §4.1): what sdem, pca and mds fit at on
// multi-dimensional data when neither d nor thr is given (or the rank,
// when that is smaller). It is 0 for other methods and for multi-label
// data (classes nil), which keep the energy threshold's default.
func SeedDim(id string, classes []int) int {
	if classes == nil || !slices.Contains(seedDimMethods, id) {
		return 0
	}
	d := 0
	for _, k := range classes {
		d += k - 1
	}
	return max(d, 0)
}

// seedDefault applies SeedDim to parameters that give neither d nor thr
// (nor a caller's MaxDim): the fit keeps d′ directions, or its rank when
// smaller, and no threshold applies (Params.MaxDim). It returns d′ when
// it applies, 0 otherwise.
func seedDefault(id string, p Params, classes []int) (Params, int) {
	d := SeedDim(id, classes)
	if d == 0 || p.D != 0 || p.Thr != 0 || p.MaxDim != 0 {
		return p, 0
	}
	p.MaxDim = d
	return p, d
}

// seedNote says that a model took seed 003's dimension.
func seedNote(m *Model, seed int, classes []int) string {
	s := fmt.Sprintf("%s: d = ΣK_j − q = %d (%d class variables of %v classes): neither d nor thr was given, "+
		"and seed 003 keeps ΣK_j − q dimensions for every method", m.Method, seed, len(classes), classes)
	if m.Dim < seed {
		s += fmt.Sprintf("; the %s is %d, so d = %d", m.RankOf, m.Rank, m.Dim)
	}
	return s
}
