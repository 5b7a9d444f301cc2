package analysis

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"

	"gonum.org/v1/gonum/mat"
)

// The kinds of mds (Params.MDSKind).
const (
	// MDSClassical is Torgerson's classical scaling: exact, nested in d
	// (the default).
	MDSClassical = "classical"
	// MDSMetric is metric least-squares scaling by SMACOF (de Leeuw 1977):
	// the configuration whose distances best match the rows' Euclidean
	// distances, from random starts.
	MDSMetric = "metric"
	// MDSNonmetric is Kruskal's (1964) non-metric scaling by SMACOF: the
	// distances match a monotone (isotonic) regression of the rows'
	// distances, so only their order counts.
	MDSNonmetric = "nonmetric"
)

// Defaults of the SMACOF kinds of mds, those of scikit-learn 1.2's MDS
// (n_init = 4, max_iter = 300, eps = 1e-3, n_components = 2).
const (
	DefaultMDSStarts     = 4
	DefaultMDSIterations = 300
	DefaultMDSSeed       = 1
	// DefaultMDSDim is the d of metric and nonmetric mds on multi-label
	// data when d is not given (multi-dimensional data take seed 003's
	// d′ = ΣK_j − q).
	DefaultMDSDim = 2
	// MaxNSMACOF is the most rows metric and nonmetric mds accept: they
	// hold the N(N−1)/2 distances between the rows (and nonmetric their
	// order and disparities), and every iteration visits each pair.
	MaxNSMACOF = 5000
	// maxMDSStarts bounds starts.
	maxMDSStarts = 100
	// smacofEps is the relative tolerance on the stress at which an
	// iteration stops, scikit-learn's eps.
	smacofEps = 1e-3
)

// Stress is how well a metric or nonmetric mds configuration Z (N×d)
// keeps the rows' distances δ_ij. With d_ij = ‖z_i − z_j‖ and the
// disparities d̂_ij — δ_ij itself (metric) or the isotonic regression of
// d_ij on the order of δ_ij (nonmetric) — Raw is Σ_{i<j} (d_ij − d̂_ij)²
// and Stress1 is Kruskal's stress-1, √(Raw / Σ_{i<j} d_ij²), both of the
// configuration returned. For metric, Raw is scikit-learn's stress_ (which
// it measures one Guttman step before the configuration it returns); for
// nonmetric only Stress1 is scale-free and comparable.
type Stress struct {
	Raw     float64 `json:"raw"`
	Stress1 float64 `json:"stress_1"`
	// Iterations is how many Guttman transforms the best start made;
	// Converged says it stopped on the tolerance before the limit.
	Iterations int  `json:"iterations"`
	Converged  bool `json:"converged"`
	// Start is the best start (1-based) of Starts, each start's Stress1
	// in StartStress1.
	Start        int       `json:"start"`
	Starts       int       `json:"starts"`
	StartStress1 []float64 `json:"start_stress_1"`
}

// pairs holds a symmetric N×N matrix without its diagonal as its strict
// upper triangle, row by row: entry (i, j), i < j, at off(i) + j − i − 1.
type pairs struct {
	n int
	v []float64
}

func (p pairs) off(i int) int { return i*p.n - i*(i+1)/2 }

// forRows runs f over the rows 0…n−1 in contiguous chunks on every core,
// the chunks balanced for work on the upper triangle (row i has n−i−1
// pairs).
func forRows(n int, f func(lo, hi int)) {
	w := max(1, min(runtime.GOMAXPROCS(0), n/64))
	if w == 1 {
		f(0, n)
		return
	}
	total := float64(n) * float64(n-1) / 2
	var wg sync.WaitGroup
	lo, done := 0, 0.0
	for k := range w {
		hi, want := lo, total*float64(k+1)/float64(w)
		for hi < n && (k == w-1 || done < want) {
			done += float64(n - hi - 1)
			hi++
		}
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			f(lo, hi)
		}(lo, hi)
		lo = hi
	}
	wg.Wait()
}

// rowDistances is the Euclidean distances between the rows of x (n×c,
// row-major), into out.
func rowDistances(x []float64, n, c int, out pairs) {
	forRows(n, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			xi := x[i*c : i*c+c]
			k := out.off(i)
			for j := i + 1; j < n; j++ {
				xj := x[j*c : j*c+c]
				s := 0.0
				for t, a := range xi {
					e := a - xj[t]
					s += e * e
				}
				out.v[k] = math.Sqrt(s)
				k++
			}
		}
	})
}

// smacof is the state of one SMACOF run over the distances delta.
type smacof struct {
	delta     pairs
	nonmetric bool
	// order lists the pairs with δ > 0 by increasing δ (nonmetric), and
	// tieEnd[k] the end of the run of equal δ that order[k] starts (or is
	// in); pairs with δ = 0 (equal rows) are left out of the monotone
	// regression, their disparity being their distance (as scikit-learn
	// takes them as missing).
	order  []int32
	ties   []int32
	d, hat pairs
	// blocks is the monotone regression's stack (value, weight, end).
	blocks []pavBlock
}

type pavBlock struct {
	sum, w float64
	end    int
}

func newSMACOF(delta pairs, nonmetric bool) *smacof {
	s := &smacof{delta: delta, nonmetric: nonmetric, d: pairs{n: delta.n, v: make([]float64, len(delta.v))}}
	if nonmetric {
		s.hat = pairs{n: delta.n, v: make([]float64, len(delta.v))}
		for k, v := range delta.v {
			if v > 0 {
				s.order = append(s.order, int32(k))
			}
		}
		slices.SortStableFunc(s.order, func(a, b int32) int {
			switch da, db := delta.v[a], delta.v[b]; {
			case da < db:
				return -1
			case da > db:
				return 1
			}
			return 0
		})
		// ties[k] is where the run of equal δ holding position k ends.
		s.ties = make([]int32, len(s.order))
		for k := 0; k < len(s.order); {
			e := k + 1
			for e < len(s.order) && delta.v[s.order[e]] == delta.v[s.order[k]] {
				e++
			}
			for t := k; t < e; t++ {
				s.ties[t] = int32(e)
			}
			k = e
		}
	}
	return s
}

// monotone puts into s.hat the least-squares non-decreasing fit of the
// distances s.d taken in the order of δ (pool-adjacent-violators), equal δ
// sharing one value (the secondary approach to ties, as scikit-learn's
// IsotonicRegression); pairs with δ = 0 keep their distance.
func (s *smacof) monotone() {
	copy(s.hat.v, s.d.v)
	st := s.blocks[:0]
	for k := 0; k < len(s.order); {
		e := int(s.ties[k])
		b := pavBlock{end: e}
		for t := k; t < e; t++ {
			b.sum += s.d.v[s.order[t]]
			b.w++
		}
		for len(st) > 0 && st[len(st)-1].sum/st[len(st)-1].w >= b.sum/b.w {
			top := st[len(st)-1]
			st = st[:len(st)-1]
			b.sum, b.w = b.sum+top.sum, b.w+top.w
		}
		st = append(st, b)
		k = e
	}
	from := 0
	for _, b := range st {
		v := b.sum / b.w
		for t := from; t < b.end; t++ {
			s.hat.v[s.order[t]] = v
		}
		from = b.end
	}
	s.blocks = st
}

// disparities are d̂ for the current distances: δ (metric), or the
// monotone regression scaled so that Σ_{i<j} d̂² = N(N−1)/2 (nonmetric:
// without a fixed scale the configuration would shrink to a point).
func (s *smacof) disparities() []float64 {
	if !s.nonmetric {
		return s.delta.v
	}
	s.monotone()
	ss := 0.0
	for _, v := range s.hat.v {
		ss += v * v
	}
	if ss > 0 {
		c := math.Sqrt(float64(len(s.hat.v)) / ss)
		for k := range s.hat.v {
			s.hat.v[k] *= c
		}
	}
	return s.hat.v
}

// guttman is the Guttman transform (de Leeuw 1977; Borg & Groenen 2005,
// eq. 8.29, unit weights): X⁺ = N⁻¹·B(X)·X, B_ij = −d̂_ij/d_ij (i ≠ j),
// B_ii = −Σ_{j≠i} B_ij, so x⁺_i = N⁻¹ Σ_{j≠i} (d̂_ij/d_ij)(x_i − x_j). A
// zero distance counts as 1e-5, as scikit-learn's. x is n×c; out gets
// X⁺. It returns Σ_i ‖x⁺_i‖.
func (s *smacof) guttman(x, out []float64, c int, hat []float64) float64 {
	n := s.delta.n
	// ratio r_ij into s.d (its distances are no longer needed).
	for k, d := range s.d.v {
		if d == 0 {
			d = 1e-5
		}
		s.d.v[k] = hat[k] / d
	}
	clear(out)
	var mu sync.Mutex
	var norms float64
	forRows(n, func(lo, hi int) {
		// Each worker sums its rows' contributions into a private buffer:
		// pair (i, j) adds r(x_i − x_j) to row i and r(x_j − x_i) to j.
		buf := make([]float64, n*c)
		for i := lo; i < hi; i++ {
			xi := x[i*c : i*c+c]
			bi := buf[i*c : i*c+c]
			k := s.d.off(i)
			for j := i + 1; j < n; j++ {
				r := s.d.v[k]
				k++
				xj := x[j*c : j*c+c]
				bj := buf[j*c : j*c+c]
				for t, a := range xi {
					e := r * (a - xj[t])
					bi[t] += e
					bj[t] -= e
				}
			}
		}
		mu.Lock()
		for t, v := range buf {
			out[t] += v
		}
		mu.Unlock()
	})
	inv := 1 / float64(n)
	for i := range n {
		row := out[i*c : i*c+c]
		ss := 0.0
		for t := range row {
			row[t] *= inv
			ss += row[t] * row[t]
		}
		norms += math.Sqrt(ss)
	}
	return norms
}

// stressOf measures x's Stress (Raw and Stress1) against the disparities
// of its own distances.
func (s *smacof) stressOf(x []float64, c int) (raw, s1 float64) {
	rowDistances(x, s.delta.n, c, s.d)
	hat := s.delta.v
	if s.nonmetric {
		s.monotone() // unscaled: the best monotone fit of these distances
		hat = s.hat.v
	}
	dd := 0.0
	for k, d := range s.d.v {
		e := d - hat[k]
		raw += e * e
		dd += d * d
	}
	if dd == 0 {
		return raw, 0
	}
	return raw, math.Sqrt(raw / dd)
}

// run iterates from the configuration x (n×c, overwritten with the
// result) at most iters times, as scikit-learn's _smacof_single: each
// iteration measures the stress σ of the current configuration against
// its disparities, applies the Guttman transform, and stops when σ/Σ‖x⁺_i‖
// fell by less than eps since the previous iteration. It returns the
// iterations made and whether the tolerance stopped them. ctx is checked
// every iteration.
func (s *smacof) run(ctx context.Context, x []float64, c, iters int, eps float64, tick func(it int)) (int, bool, error) {
	tmp := make([]float64, len(x))
	old, have := 0.0, false
	for it := range iters {
		if err := ctx.Err(); err != nil {
			return it, false, err
		}
		rowDistances(x, s.delta.n, c, s.d)
		hat := s.disparities()
		sigma := 0.0
		for k, d := range s.d.v {
			e := d - hat[k]
			sigma += e * e
		}
		norms := s.guttman(x, tmp, c, hat)
		copy(x, tmp)
		if tick != nil {
			tick(it)
		}
		if have && old-sigma/norms < eps {
			return it + 1, true, nil
		}
		old, have = sigma/norms, true
	}
	return iters, false, nil
}

// randomStart is a configuration of n×c values uniform in [0, 1), from the
// seed and the start's number.
func randomStart(n, c int, seed uint64, start int) []float64 {
	r := rand.New(rand.NewPCG(seed, uint64(start)))
	x := make([]float64, n*c)
	for i := range x {
		x[i] = r.Float64()
	}
	return x
}

// smacofDim is the d of a metric or nonmetric fit: d, else the caller's
// MaxDim (seed 003's d′, or an evaluation's), else DefaultMDSDim.
func smacofDim(p Params) int {
	switch {
	case p.D > 0:
		return p.D
	case p.MaxDim > 0:
		return p.MaxDim
	}
	return DefaultMDSDim
}

// smacofRows refuses n rows, more than metric and nonmetric mds accept.
func smacofRows(p Params, n int) error {
	return unservable("method", MaxNSMACOF, "%s mds accepts at most %d rows because it holds the distances between every pair of rows "+
		"(N(N−1)/2 of them) and visits each pair at every iteration; these data have %d. Use classical mds, which needs no pairs, or a sample of the rows",
		p.mdsKind(), MaxNSMACOF, n)
}

// fitSMACOF is metric or nonmetric mds (Params.MDSKind) of the rows'
// Euclidean distances δ_ij by SMACOF (de Leeuw 1977; Borg & Groenen,
// Modern Multidimensional Scaling, 2005, ch. 8–9): from each of Starts
// configurations of N×d values uniform in [0, 1) drawn with Seed, at most
// Iterations Guttman transforms (smacof.run), the disparities being δ
// (metric) or the monotone regression of the distances on δ's order
// (nonmetric, Kruskal 1964); the start of least stress — raw (metric),
// stress-1 (nonmetric) — is the embedding, its Stress in Model.Stress.
// The coordinates are not nested: the model gives its d alone (WithDim
// refuses another). More than MaxNSMACOF rows, or d above N − 1, are
// refused; sparse features are made dense (the pairs need the rows).
func fitSMACOF(ctx context.Context, in Input, p Params, st stage) (*Model, error) {
	n, nf := in.dims()
	if n > MaxNSMACOF {
		return nil, smacofRows(p, n)
	}
	d := smacofDim(p)
	if d > min(n-1, mdsMaxDims) {
		return nil, unservable(ParamD, min(n-1, mdsMaxDims), "d = %d: %s mds on %d rows gives at most %d coordinates", d, p.mdsKind(), n, min(n-1, mdsMaxDims))
	}
	var note string
	in, note = in.densified("mds")
	st.sub(0, 0.05, "distances").at(0)
	delta := pairs{n: n, v: make([]float64, n*(n-1)/2)}
	raw := in.X.RawMatrix()
	x := raw.Data
	if raw.Stride != nf {
		x = make([]float64, n*nf)
		for i := range n {
			copy(x[i*nf:(i+1)*nf], raw.Data[i*raw.Stride:i*raw.Stride+nf])
		}
	}
	rowDistances(x, n, nf, delta)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	starts := cmp.Or(p.Starts, DefaultMDSStarts)
	iters := cmp.Or(p.Iterations, DefaultMDSIterations)
	seed := uint64(DefaultMDSSeed)
	if p.Seed != nil {
		seed = *p.Seed
	}
	nonmetric := p.mdsKind() == MDSNonmetric
	s := newSMACOF(delta, nonmetric)
	var best []float64
	res := &Stress{Starts: starts, StartStress1: make([]float64, starts)}
	bestScore := math.Inf(1)
	for k := range starts {
		part := st.sub(0.05+0.95*float64(k)/float64(starts), 0.05+0.95*float64(k+1)/float64(starts), fmt.Sprintf("start %d of %d", k+1, starts))
		z := randomStart(n, d, seed, k)
		it, conv, err := s.run(ctx, z, d, iters, smacofEps, func(it int) { part.at(float64(it+1) / float64(iters)) })
		if err != nil {
			return nil, err
		}
		r, s1 := s.stressOf(z, d)
		res.StartStress1[k] = s1
		score := r
		if nonmetric {
			score = s1
		}
		if score < bestScore {
			bestScore, best = score, z
			res.Raw, res.Stress1, res.Iterations, res.Converged, res.Start = r, s1, it, conv, k+1
		}
	}
	emb := mat.NewDense(n, d, best)
	fixSigns(emb)
	rank := min(n-1, mdsMaxDims)
	m := &Model{Method: "mds", Space: FeatureSpace, Params: p, Rank: rank,
		RankOf: "largest d of metric and nonmetric mds (N − 1, at most 200)", Dim: d, embedding: emb, Stress: res}
	m.Projected = mat.DenseCopyOf(emb)
	if note != "" {
		m.Notes = append(m.Notes, note)
	}
	if !res.Converged {
		m.Notes = append(m.Notes, fmt.Sprintf("mds: the best of the %d starts stopped at the limit of %d iterations before the relative tolerance %g; "+
			"its stress-1 is %.4g. More iterations may lower it", starts, iters, smacofEps, res.Stress1))
	}
	return m, nil
}

// memSMACOF: the N(N−1)/2 distances δ and the configuration's distances
// (metric), and for nonmetric the disparities and the order and tie ends
// of the pairs (two int32, one float64 between them); a dense copy of
// sparse features; the configurations (current, next, best, the
// embedding and Projected) and each worker's buffer of the Guttman
// transform, N×d each.
func memSMACOF(p Params, s Shape) float64 {
	l := newLedger()
	n, nf := float64(s.N), float64(s.D)
	if s.NNZ > 0 {
		l.hold(n * nf)
	}
	pr := n * (n - 1) / 2
	l.hold(2 * pr)
	if p.mdsKind() == MDSNonmetric {
		l.hold(2 * pr)
	}
	c := float64(smacofDim(p))
	l.hold(5 * n * c)
	l.burst(l.workers * n * c)
	return l.peak
}
