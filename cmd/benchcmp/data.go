package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"

	"mldr/internal/export"
)

// genVersion names the data generator in the cache's file names: change it
// whenever the generator changes, so that stale files are not reused.
const genVersion = "v1"

// Shape of the generated data.
const (
	// latentRank is the rank of the structured part of the features.
	latentRank = 20
	// labelsPerRow is the mean number of ones in a label row.
	labelsPerRow = 4
	// labelNoise is the spread of the noise added to a label's score.
	labelNoise = 0.7
	// classVars and classCount shape the multi-dimensional labels: classVars
	// class variables of classCount classes each.
	classVars  = 10
	classCount = 10
	// eigenRank is the number of strong directions of the eigen matrix.
	eigenRank = 60
)

// dataFiles are the files one case reads, and the category counts of its
// class variables (nil for multi-label data).
type dataFiles struct {
	// X, Y and A are .npy matrices: the dense features, the labels (or
	// class variables), the eigen case's symmetric matrix.
	X, Y, A string
	// CSR holds the wide rows' sparse features instead of X.
	CSR *csrFiles
	// CSV is the end-to-end rows' upload: X and Y as one CSV file.
	CSV     string
	Classes []int
}

// dataPaths names the cache files of case c in dir. The names carry the
// shape, the seed and genVersion, so a file found there holds exactly the
// data that would be generated.
func dataPaths(dir string, c benchCase, seed uint64) dataFiles {
	s := c.size
	switch {
	case c.work == workEigen:
		return dataFiles{A: filepath.Join(dir, fmt.Sprintf("psd-%dx%d-seed%d-%s.npy", s.d, s.d, seed, genVersion))}
	case c.kind == kindWide:
		return wideDataPaths(dir, s, seed)
	case c.kind == kindE2E:
		return e2eDataPaths(dir, s, seed)
	}
	f := dataFiles{X: filepath.Join(dir, fmt.Sprintf("x-n%d-d%d-seed%d-%s.npy", s.n, s.d, seed, genVersion))}
	if c.multiDim {
		f.Y = filepath.Join(dir, fmt.Sprintf("classes-n%d-d%d-%dx%d-seed%d-%s.npy", s.n, s.d, classVars, classCount, seed, genVersion))
		f.Classes = make([]int, classVars)
		for j := range f.Classes {
			f.Classes[j] = classCount
		}
		return f
	}
	f.Y = filepath.Join(dir, fmt.Sprintf("labels-n%d-d%d-q%d-seed%d-%s.npy", s.n, s.d, s.q, seed, genVersion))
	return f
}

// dataFile is one item of a case's data: what the log calls it, whether
// the cache has it, and how to write it (under a temporary name renamed
// into place, so that a file under its final name is always complete).
type dataFile struct {
	name    string
	present func() (bool, error)
	write   func() error
}

// matrixFile is a rows×cols float64 .npy file at path that make computes.
func matrixFile(path string, rows, cols int, make func() mat.Matrix) dataFile {
	return dataFile{
		name:    fmt.Sprintf("%s (%d×%d)", filepath.Base(path), rows, cols),
		present: func() (bool, error) { return cached(path, rows, cols) },
		write:   func() error { return writeNPYFile(path, make()) },
	}
}

// dataPlan lists the files of case c in dir (as dataPaths names them), in
// the order they are written.
func dataPlan(dir string, c benchCase, seed uint64) []dataFile {
	f := dataPaths(dir, c, seed)
	s := c.size
	switch {
	case c.work == workEigen:
		return []dataFile{matrixFile(f.A, s.d, s.d, func() mat.Matrix { return psdMatrix(seed, s.d) })}
	case c.kind == kindWide:
		return widePlan(f, s, seed)
	case c.kind == kindE2E:
		return e2ePlan(f, s, seed)
	}
	files := []dataFile{matrixFile(f.X, s.n, s.d, func() mat.Matrix { return features(seed, s.n, s.d) })}
	if c.multiDim {
		return append(files, matrixFile(f.Y, s.n, classVars, func() mat.Matrix {
			return classLabels(seed, s.n, s.d, latent(seed, s.n, s.d))
		}))
	}
	return append(files, matrixFile(f.Y, s.n, s.q, func() mat.Matrix {
		return multiLabels(seed, s.n, s.d, s.q, latent(seed, s.n, s.d))
	}))
}

// missingData lists the files of plan that are not in the cache.
func missingData(plan []dataFile) ([]dataFile, error) {
	var out []dataFile
	for _, f := range plan {
		ok, err := f.present()
		if err != nil {
			return nil, err
		}
		if !ok {
			out = append(out, f)
		}
	}
	return out, nil
}

// ensureData writes the files of case c into dir unless they are there
// already, and returns their paths. Files are written to a temporary name
// and renamed, so a file under its final name is always complete. log
// receives a line per file generated.
func ensureData(ctx context.Context, dir string, c benchCase, seed uint64, log io.Writer) (dataFiles, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return dataFiles{}, fmt.Errorf("creating the data cache %s: %w", dir, err)
	}
	missing, err := missingData(dataPlan(dir, c, seed))
	if err != nil {
		return dataFiles{}, err
	}
	for _, fl := range missing {
		if err := ctx.Err(); err != nil {
			return dataFiles{}, err
		}
		fmt.Fprintf(log, "generating %s\n", fl.name)
		if err := fl.write(); err != nil {
			return dataFiles{}, err
		}
	}
	return dataPaths(dir, c, seed), nil
}

// genSpec is what a generator child is asked to make: the data of one
// case. The parent passes it as JSON in the hidden -generate flag.
type genSpec struct {
	Dir      string `json:"dir"`
	Work     string `json:"work"`
	N        int    `json:"n"`
	D        int    `json:"d"`
	Q        int    `json:"q"`
	MultiDim bool   `json:"multi_dim"`
	Seed     uint64 `json:"seed"`
	// Kind and Density: the wide rows' sparse data, the end-to-end rows'.
	Kind    caseKind `json:"kind,omitempty"`
	Density float64  `json:"density,omitempty"`
}

// runGenerator is the generator child: it writes the missing files of the
// case raw describes, logging each to log.
func runGenerator(ctx context.Context, raw string, log io.Writer) error {
	var g genSpec
	if err := json.Unmarshal([]byte(raw), &g); err != nil {
		return fmt.Errorf("reading the generator's task: %w", err)
	}
	c := benchCase{work: g.Work, size: dataSize{n: g.N, d: g.D, q: g.Q, density: g.Density}, multiDim: g.MultiDim, kind: g.Kind}
	_, err := ensureData(ctx, g.Dir, c, g.Seed, log)
	return err
}

// provideData makes sure the files of case c are in dir and returns their
// paths. Missing files are generated in a child process (this program with
// -generate) so that this process never holds the data: on Linux a child
// is started sharing its parent's memory (os/exec uses vfork), and execve
// carries the parent's peak resident memory into the child's ru_maxrss, so
// a parent that once held 800 MB would make every child's peak at least
// that. The child's log goes to log.
func provideData(ctx context.Context, self, dir string, c benchCase, seed uint64, log io.Writer) (dataFiles, error) {
	missing, err := missingData(dataPlan(dir, c, seed))
	if err != nil || len(missing) == 0 {
		return dataPaths(dir, c, seed), err
	}
	b, err := json.Marshal(genSpec{Dir: dir, Work: c.work, N: c.size.n, D: c.size.d, Q: c.size.q,
		MultiDim: c.multiDim, Seed: seed, Kind: c.kind, Density: c.size.density})
	if err != nil {
		return dataFiles{}, fmt.Errorf("encoding the generator's task: %w", err)
	}
	cmd := exec.CommandContext(ctx, self, "-"+generateFlag, string(b))
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		return dataFiles{}, fmt.Errorf("generating the data in a child process: %w", err)
	}
	return dataPaths(dir, c, seed), nil
}

// cached reports whether path holds a rows×cols float64 .npy file: it is
// there and has the size of one (a header of a multiple of 64 bytes, at
// most 4 KiB, then 8 bytes a value).
func cached(path string, rows, cols int) (bool, error) {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("looking for cached data: %w", err)
	}
	header := st.Size() - 8*int64(rows)*int64(cols)
	return header > 0 && header <= 4096 && header%64 == 0, nil
}

// writeNPYFile writes m to path as .npy (export.WriteNPY: NPY 1.0, '<f8',
// C order), through a temporary file in the same directory renamed into
// place.
func writeNPYFile(path string, m mat.Matrix) error {
	return writeFileAtomic(path, func(w *bufio.Writer) error { return export.WriteNPY(w, m) })
}

// writeFileAtomic writes path through a temporary file in the same
// directory, buffered, renamed into place once write has succeeded and the
// file is closed; on an error the temporary file is removed. Errors say
// "writing <path>".
func writeFileAtomic(path string, write func(w *bufio.Writer) error) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*"+filepath.Ext(path))
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	w := bufio.NewWriterSize(tmp, 1<<20)
	if err := write(w); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// loadNPY reads a float64 .npy file into a matrix with export.ReadNPY. The
// reader tells ReadNPY how many bytes are left, so it allocates the matrix
// once at its final size: the child's peak memory is then the data and the
// fit, not a growing buffer.
func loadNPY(path string) (*mat.Dense, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("loading data: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("loading data: %w", err)
	}
	m, err := export.ReadNPY(&sizedReader{r: bufio.NewReaderSize(f, 1<<20), left: int(st.Size())})
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", path, err)
	}
	return m, nil
}

// sizedReader is a reader that knows how many bytes it has left (Len).
type sizedReader struct {
	r    io.Reader
	left int
}

// Read reads from the underlying reader and counts what it gives.
func (s *sizedReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	s.left -= n
	return n, err
}

// Len is the number of bytes not read yet.
func (s *sizedReader) Len() int { return s.left }

// newRand returns a generator for one purpose of the data: the same seed
// and key always give the same stream, different keys independent ones.
func newRand(seed uint64, key string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(key))
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}

// latent is the n×latentRank matrix F of standard normal factors that the
// features and the labels of the (n, d) data share.
func latent(seed uint64, n, d int) *mat.Dense {
	rng := newRand(seed, fmt.Sprintf("latent n%d d%d", n, d))
	f := mat.NewDense(n, latentRank, nil)
	for i := range f.RawMatrix().Data {
		f.RawMatrix().Data[i] = rng.NormFloat64()
	}
	return f
}

// features returns X = F·W + E + 1·μᵀ (n×d): F the latent factors, W
// (latentRank×d) standard normal with row k scaled by s_k ∝ 0.85^k and
// Σs_k² = 1, so that the structured part has about unit variance per
// feature as the noise E has, and μ normal with spread 2. The spectrum of
// XcᵀXc is then latentRank spikes decaying over two orders of magnitude
// above a Marchenko–Pastur bulk, as real data tend to have.
func features(seed uint64, n, d int) *mat.Dense {
	rng := newRand(seed, fmt.Sprintf("features n%d d%d", n, d))
	scale := make([]float64, latentRank)
	total := 0.0
	for k := range scale {
		scale[k] = math.Pow(0.85, float64(k))
		total += scale[k] * scale[k]
	}
	w := mat.NewDense(latentRank, d, nil)
	for k := range latentRank {
		for j := range d {
			w.Set(k, j, rng.NormFloat64()*scale[k]/math.Sqrt(total))
		}
	}
	mu := make([]float64, d)
	for j := range mu {
		mu[j] = 2 * rng.NormFloat64()
	}
	x := mat.NewDense(n, d, nil)
	x.Mul(latent(seed, n, d), w)
	raw := x.RawMatrix()
	for i := range n {
		row := raw.Data[i*raw.Stride : i*raw.Stride+d]
		for j := range row {
			row[j] += rng.NormFloat64() + mu[j]
		}
	}
	return x
}

// multiLabels returns q labels (n×q, 0/1) that depend on the features:
// label j is on when F·a_j + labelNoise·ε passes a threshold, a_j a random
// unit vector of the latent space, the threshold set so that label j is on
// with probability p_j ∝ (j+1)^−½, p summing to labelsPerRow (capped at ½).
func multiLabels(seed uint64, n, d, q int, f *mat.Dense) *mat.Dense {
	rng := newRand(seed, fmt.Sprintf("labels n%d d%d q%d", n, d, q))
	a := unitColumns(rng, latentRank, q)
	p := make([]float64, q)
	total := 0.0
	for j := range p {
		p[j] = 1 / math.Sqrt(float64(j+1))
		total += p[j]
	}
	spread := math.Sqrt(1 + labelNoise*labelNoise)
	cut := make([]float64, q)
	for j := range p {
		p[j] = min(0.5, labelsPerRow*p[j]/total)
		cut[j] = spread * distuv.UnitNormal.Quantile(1-p[j])
	}
	var score mat.Dense
	score.Mul(f, a)
	y := mat.NewDense(n, q, nil)
	for i := range n {
		for j := range q {
			if score.At(i, j)+labelNoise*rng.NormFloat64() > cut[j] {
				y.Set(i, j, 1)
			}
		}
	}
	return y
}

// classLabels returns classVars class variables (n×classVars, values
// 0…classCount−1) that depend on the features: variable v is the decile of
// F·b_v + labelNoise·ε, b_v a random unit vector, so its classes are about
// equally frequent.
func classLabels(seed uint64, n, d int, f *mat.Dense) *mat.Dense {
	rng := newRand(seed, fmt.Sprintf("classes n%d d%d %dx%d", n, d, classVars, classCount))
	b := unitColumns(rng, latentRank, classVars)
	var score mat.Dense
	score.Mul(f, b)
	spread := math.Sqrt(1 + labelNoise*labelNoise)
	y := mat.NewDense(n, classVars, nil)
	for i := range n {
		for v := range classVars {
			u := distuv.UnitNormal.CDF((score.At(i, v) + labelNoise*rng.NormFloat64()) / spread)
			y.Set(i, v, float64(min(classCount-1, int(u*classCount))))
		}
	}
	return y
}

// unitColumns returns an r×c matrix of random unit columns.
func unitColumns(rng *rand.Rand, r, c int) *mat.Dense {
	a := mat.NewDense(r, c, nil)
	for j := range c {
		norm := 0.0
		for k := range r {
			v := rng.NormFloat64()
			a.Set(k, j, v)
			norm += v * v
		}
		norm = math.Sqrt(norm)
		for k := range r {
			a.Set(k, j, a.At(k, j)/norm)
		}
	}
	return a
}

// psdMatrix returns the d×d symmetric positive semi-definite matrix WᵀW/d,
// with W (d×d) the sum of eigenRank directions of strengths decaying as
// 0.95^k and standard normal noise: eigenRank eigenvalues stand out above a
// Marchenko–Pastur bulk that reaches down to 0, and the top 50 are spread
// out like a real covariance's.
func psdMatrix(seed uint64, d int) *mat.SymDense {
	rng := newRand(seed, fmt.Sprintf("psd d%d", d))
	u := mat.NewDense(d, eigenRank, nil)
	v := mat.NewDense(eigenRank, d, nil)
	for k := range eigenRank {
		s := 3 * math.Pow(0.95, float64(k))
		for i := range d {
			u.Set(i, k, s*rng.NormFloat64())
			v.Set(k, i, rng.NormFloat64())
		}
	}
	w := mat.NewDense(d, d, nil)
	w.Mul(u, v)
	raw := w.RawMatrix()
	for i := range raw.Data {
		raw.Data[i] += rng.NormFloat64()
	}
	a := mat.NewSymDense(d, nil)
	a.SymOuterK(1/float64(d), w.T())
	return a
}
