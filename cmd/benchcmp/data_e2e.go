package main

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"gonum.org/v1/gonum/mat"
)

// csvDigits is the number of significant digits of the features in the
// end-to-end rows' CSV, as data files usually carry; the .npy copy that
// numpy loads holds the same values, read back from those digits.
const csvDigits = 6

// e2eDataPaths names the end-to-end rows' files: the features and labels
// as .npy for numpy, and the same as one CSV file for the upload.
func e2eDataPaths(dir string, s dataSize, seed uint64) dataFiles {
	return dataFiles{
		X:   filepath.Join(dir, fmt.Sprintf("e2e-x-n%d-d%d-seed%d-%s.npy", s.n, s.d, seed, genVersion)),
		Y:   filepath.Join(dir, fmt.Sprintf("e2e-labels-n%d-d%d-q%d-seed%d-%s.npy", s.n, s.d, s.q, seed, genVersion)),
		CSV: filepath.Join(dir, fmt.Sprintf("e2e-n%d-d%d-q%d-seed%d-%s.csv", s.n, s.d, s.q, seed, genVersion)),
	}
}

// e2ePlan lists the end-to-end rows' files: the features rounded to
// csvDigits digits, the labels, then the CSV made from both .npy files.
func e2ePlan(f dataFiles, s dataSize, seed uint64) []dataFile {
	return []dataFile{
		matrixFile(f.X, s.n, s.d, func() mat.Matrix { return roundedFeatures(seed, s.n, s.d) }),
		matrixFile(f.Y, s.n, s.q, func() mat.Matrix { return multiLabels(seed, s.n, s.d, s.q, latent(seed, s.n, s.d)) }),
		csvFile(f.CSV, fmt.Sprintf("%d rows, %d features, %d labels", s.n, s.d, s.q), func() error { return writeDataCSV(f.CSV, f.X, f.Y) }),
	}
}

// csvFile is a CSV file at path that write writes; what describes it for
// the log. It is present when it is there: it is written under a
// temporary name renamed into place.
func csvFile(path, what string, write func() error) dataFile {
	return dataFile{
		name: fmt.Sprintf("%s (%s)", filepath.Base(path), what),
		present: func() (bool, error) {
			_, err := os.Stat(path)
			if errors.Is(err, fs.ErrNotExist) {
				return false, nil
			}
			return err == nil, err
		},
		write: write,
	}
}

// roundedFeatures is features(seed, n, d) with every value rounded to
// csvDigits significant digits, as the CSV holds it.
func roundedFeatures(seed uint64, n, d int) *mat.Dense {
	x := features(seed, n, d)
	data := x.RawMatrix().Data
	for i, v := range data {
		data[i] = roundDigits(v)
	}
	return x
}

// roundDigits is v rounded to csvDigits significant digits: the float64
// nearest to its shortest decimal form with that many digits.
func roundDigits(v float64) float64 {
	r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'g', csvDigits, 64), 64)
	if err != nil {
		panic(err) // FormatFloat's output always parses
	}
	return r
}

// writeDataCSV writes the features of the .npy file xPath and the 0/1
// labels of yPath to path as a CSV file (writeCSV).
func writeDataCSV(path, xPath, yPath string) error {
	x, err := loadNPY(xPath)
	if err != nil {
		return err
	}
	y, err := loadNPY(yPath)
	if err != nil {
		return err
	}
	return writeCSV(path, x, y)
}

// writeCSV writes the features x and the 0/1 labels y to path as a CSV
// file that the webapp reads: a header f1,…,fD,label:l1,…,label:lq, then
// one line per row with each value in its shortest form (a sparse x's
// zeros as 0). It writes a temporary file renamed into place.
func writeCSV(path string, x, y mat.Matrix) error {
	n, d := x.Dims()
	ny, q := y.Dims()
	if ny != n {
		return fmt.Errorf("writing %s: %d rows of features and %d of labels", path, n, ny)
	}
	return writeFileAtomic(path, func(w *bufio.Writer) error {
		line := make([]byte, 0, 16*(d+q))
		for j := range d {
			line = append(line, 'f')
			line = strconv.AppendInt(line, int64(j+1), 10)
			line = append(line, ',')
		}
		for j := range q {
			line = append(line, "label:l"...)
			line = strconv.AppendInt(line, int64(j+1), 10)
			line = append(line, ',')
		}
		line[len(line)-1] = '\n'
		if _, err := w.Write(line); err != nil {
			return err
		}
		for i := range n {
			line = line[:0]
			for j := range d {
				line = strconv.AppendFloat(line, x.At(i, j), 'g', -1, 64)
				line = append(line, ',')
			}
			for j := range q {
				line = strconv.AppendFloat(line, y.At(i, j), 'g', -1, 64)
				line = append(line, ',')
			}
			line[len(line)-1] = '\n'
			if _, err := w.Write(line); err != nil {
				return err
			}
		}
		return nil
	})
}
