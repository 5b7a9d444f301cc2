// Package export writes the matrices of a succeeded job in the download
// formats of shared/API.md ("Results of a succeeded job"): NumPy .npy
// (projection.npy), CSV with row and column names (projection.csv,
// projected.csv) and plain [][]float64 for the caller's JSON encoder
// (projection.json).
//
// Writers take an io.Writer and readers an io.Reader; nothing here knows
// about HTTP or jobs. Every function is safe for concurrent use on distinct
// writers and readers.
package export

import (
	"strconv"

	"gonum.org/v1/gonum/mat"
)

// Rows returns a copy of the r×c matrix m as r slices of c values each, for
// encoding as a JSON array of rows. A matrix with no rows gives an empty,
// non-nil slice (JSON []), and one with no columns gives empty, non-nil rows.
// The rows share one backing array but have capacity c, so appending to one
// never overwrites the next.
//
// encoding/json refuses NaN and ±Inf: callers that may hold them must check
// before encoding.
func Rows(m mat.Matrix) [][]float64 {
	r, c := m.Dims()
	out := make([][]float64, r)
	backing := make([]float64, r*c)
	for i := range out {
		row := backing[i*c : (i+1)*c : (i+1)*c]
		for j := range row {
			row[j] = m.At(i, j)
		}
		out[i] = row
	}
	return out
}

// ComponentNames returns the column names of a projection with d components,
// "c1" to "cd", as in the header "name,c1,…,cd" of projection.csv. It
// returns an empty slice for d = 0 and panics if d is negative.
func ComponentNames(d int) []string {
	if d < 0 {
		panic("export: negative number of components " + strconv.Itoa(d))
	}
	names := make([]string, d)
	for i := range names {
		names[i] = "c" + strconv.Itoa(i+1)
	}
	return names
}
