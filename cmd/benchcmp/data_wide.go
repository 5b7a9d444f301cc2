package main

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/sparse"
)

// Shape of the wide rows' sparse features.
const (
	// wideTopicShare is the share of a row's entries drawn from its topics'
	// columns; the rest fall on columns drawn uniformly.
	wideTopicShare = 0.7
	// wideTopicSpread is the inverse temperature of a row's topic mixture:
	// the weight of topic t in row i is exp(wideTopicSpread·F[i,t]).
	wideTopicSpread = 2
)

// csrFiles are the three .npy files of a CSR matrix, as scipy names its
// arrays: the row pointers (indptr, int64, N+1 values), the column of each
// entry (indices, int32) and its value (data, float64); Cols is its number
// of columns, which the arrays do not carry.
type csrFiles struct {
	Indptr, Indices, Data string
	Cols                  int
}

// wideDataPaths names the wide rows' files: the sparse features and the
// labels, and the same as a CSV file for the end-to-end rows' upload.
func wideDataPaths(dir string, s dataSize, seed uint64) dataFiles {
	base := fmt.Sprintf("wide-n%d-d%d-p%g-seed%d-%s", s.n, s.d, s.density, seed, genVersion)
	return dataFiles{
		CSR: &csrFiles{
			Indptr:  filepath.Join(dir, base+"-indptr.npy"),
			Indices: filepath.Join(dir, base+"-indices.npy"),
			Data:    filepath.Join(dir, base+"-data.npy"),
			Cols:    s.d,
		},
		Y:   filepath.Join(dir, fmt.Sprintf("wide-labels-n%d-d%d-p%g-q%d-seed%d-%s.npy", s.n, s.d, s.density, s.q, seed, genVersion)),
		CSV: filepath.Join(dir, fmt.Sprintf("wide-n%d-d%d-p%g-q%d-seed%d-%s.csv", s.n, s.d, s.density, s.q, seed, genVersion)),
	}
}

// widePlan lists the wide rows' files: the CSR arrays (written together,
// the row pointers last, so that they stand for the three), the labels,
// then the CSV made from both.
func widePlan(f dataFiles, s dataSize, seed uint64) []dataFile {
	csr := dataFile{
		name:    fmt.Sprintf("%s and its indices and data (%d×%d, %g%% dense)", filepath.Base(f.CSR.Indptr), s.n, s.d, 100*s.density),
		present: func() (bool, error) { return csrCached(*f.CSR, s.n) },
		write: func() error {
			return writeCSR(*f.CSR, wideFeatures(seed, s.n, s.d, s.density, latent(seed, s.n, s.d)))
		},
	}
	labels := matrixFile(f.Y, s.n, s.q, func() mat.Matrix {
		return multiLabels(seed, s.n, s.d, s.q, latent(seed, s.n, s.d))
	})
	csv := csvFile(f.CSV, fmt.Sprintf("%d rows, %d sparse features, %d labels", s.n, s.d, s.q), func() error {
		x, err := loadCSR(*f.CSR)
		if err != nil {
			return err
		}
		y, err := loadNPY(f.Y)
		if err != nil {
			return err
		}
		return writeCSV(f.CSV, x, y)
	})
	return []dataFile{csr, labels, csv}
}

// wideFeatures returns sparse bag-of-words-like features (n×d, about
// density·n·d entries) that depend on the latent factors f (n×latentRank):
// topic t owns d/(2·latentRank) columns drawn at random (the topics cover
// about half the columns, with little overlap); row i has m_i entries, m_i
// uniform in [m/2, 3m/2] with m = density·d, a share wideTopicShare of them
// drawn from the columns of a topic chosen with weight
// exp(wideTopicSpread·F[i,t]), the rest uniformly; each entry is
// 1 + Exp(1) rounded to csvDigits digits (as the CSV holds it). Rows sharing topics share columns, and the labels
// (multiLabels on the same f) follow the topics, so XcᵀXc has leading
// directions that the labels see.
func wideFeatures(seed uint64, n, d int, density float64, f *mat.Dense) *sparse.CSR {
	rng := newRand(seed, fmt.Sprintf("wide features n%d d%d p%g", n, d, density))
	perTopic := max(1, d/(2*latentRank))
	topics := make([][]int32, latentRank)
	for t := range topics {
		topics[t] = make([]int32, perTopic)
		for k := range topics[t] {
			topics[t][k] = int32(rng.IntN(d))
		}
	}
	m := density * float64(d)
	b := sparse.NewBuilder(d, int(m*float64(n)*1.05))
	seen := make([]int, d) // row+1 where the column was taken
	weights := make([]float64, latentRank)
	var cols []int32
	for i := range n {
		total := 0.0
		for t := range weights {
			weights[t] = math.Exp(wideTopicSpread * f.At(i, t))
			total += weights[t]
		}
		want := min(d, max(1, int(math.Round(m*(0.5+rng.Float64())))))
		cols = cols[:0]
		for len(cols) < want {
			var j int32
			if rng.Float64() < wideTopicShare {
				u, t := rng.Float64()*total, 0
				for t < latentRank-1 && u >= weights[t] {
					u -= weights[t]
					t++
				}
				j = topics[t][rng.IntN(perTopic)]
			} else {
				j = int32(rng.IntN(d))
			}
			if seen[j] != i+1 {
				seen[j] = i + 1
				cols = append(cols, j)
			}
		}
		slices.Sort(cols)
		for _, j := range cols {
			b.Add(int(j), roundDigits(1+rng.ExpFloat64()))
		}
		b.EndRow()
	}
	return b.Build()
}

// writeCSR writes m's arrays to the files of f: indices and data first,
// the row pointers last, each renamed into place when complete.
func writeCSR(f csrFiles, m *sparse.CSR) error {
	if err := writeVectorNPY(f.Indices, m.Ind); err != nil {
		return err
	}
	if err := writeVectorNPY(f.Data, m.Val); err != nil {
		return err
	}
	return writeVectorNPY(f.Indptr, m.Ptr)
}

// csrCached reports whether the files of f hold a CSR matrix of rows
// rows: the row pointers have rows+1 values, and the indices and the
// data as many as the last pointer says.
func csrCached(f csrFiles, rows int) (bool, error) {
	ok, err := vectorCached(f.Indptr, rows+1, 8)
	if err != nil || !ok {
		return false, err
	}
	ptr, err := readVectorNPY[int64](f.Indptr)
	if err != nil {
		return false, err
	}
	nnz := int(ptr[rows])
	for _, v := range []struct {
		path string
		size int
	}{{f.Indices, 4}, {f.Data, 8}} {
		if ok, err := vectorCached(v.path, nnz, v.size); err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

// loadCSR reads the CSR matrix of f and checks it (sparse.CSR.Check).
func loadCSR(f csrFiles) (*sparse.CSR, error) {
	ptr, err := readVectorNPY[int64](f.Indptr)
	if err != nil {
		return nil, err
	}
	ind, err := readVectorNPY[int32](f.Indices)
	if err != nil {
		return nil, err
	}
	val, err := readVectorNPY[float64](f.Data)
	if err != nil {
		return nil, err
	}
	if len(ptr) == 0 {
		return nil, fmt.Errorf("loading %s: no row pointers", f.Indptr)
	}
	m := &sparse.CSR{R: len(ptr) - 1, C: f.Cols, Ptr: ptr, Ind: ind, Val: val}
	if err := m.Check(); err != nil {
		return nil, fmt.Errorf("loading %s: %w", f.Indptr, err)
	}
	return m, nil
}
