package knn

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// ApproxOptions tunes SearchApprox. Zero values take the defaults.
type ApproxOptions struct {
	// Recall is the share of the exact k nearest the search aims to find
	// on its tuning rows (default 0.95): the number of lists probed a
	// query is the smallest power of two that reaches it there.
	Recall float64
	// Sample is the number of query rows the reported recall is measured
	// on against the exact search (default 1 000; every query row when
	// there are fewer).
	Sample int
	// Seed seeds the sampling of the lists' training rows and of the
	// query rows measured.
	Seed uint64
}

// ApproxReport says how SearchApprox searched and how well.
type ApproxReport struct {
	// Lists is the number of lists the reference rows were divided into,
	// Probes the number searched for each query row.
	Lists, Probes int
	// Sample is the number of query rows Recall was measured on, and
	// Recall the share of their exact k nearest (Search's) that the
	// approximate search returned: recall@k.
	Sample int
	Recall float64
	// Refined is the number of query rows whose probed lists held fewer
	// than k rows together, searched exactly instead.
	Refined int
}

// DefaultRecall is ApproxOptions.Recall's default.
const DefaultRecall = 0.95

// DefaultSample is ApproxOptions.Sample's default.
const DefaultSample = 1000

// maxProbes bounds the lists a query may probe while the search tunes
// itself, beyond which the approximate search would cost about as much as
// the exact one.
const maxProbes = 256

// chunkRows is the most rows the steps of SearchApprox pack at once, so
// that no step holds a packed copy of all the reference or query rows.
const chunkRows = 1 << 16

// kmeansIters is the most Lloyd iterations that place the lists' centres.
const kmeansIters = 10

// samplePerList is the number of reference rows sampled per list to place
// the centres (as FAISS's inverted files train on 39 to 256 a list).
const samplePerList = 40

// ExactSeconds is the predicted wall time, in seconds, of Search's blocked
// way for q query rows among r reference rows of d columns on the machine
// of docs/BENCHMARKS.md (the costs useTree weighs).
func ExactSeconds(r, q, d int) float64 {
	rf, qf, df := float64(r), float64(q), float64(d)
	return qf * (rf*(brutePair+brutePairCol*df) + bruteQuery) * 1e-9
}

// SearchApprox finds, for every row of query (Q×D), k reference rows
// (R×D) near it: most of its k nearest, at a fraction of Search's cost
// when both are large. It is an inverted-file index (Jégou, Douze and
// Schmid, "Product quantization for nearest neighbor search", IEEE TPAMI
// 2011, §IV-A, without the quantisation):
//
//  1. The reference rows are divided into L = round(√R) lists by k-means
//     (Lloyd's iterations, at most kmeansIters, from L sampled rows) on
//     40·L sampled rows; each row then joins the list of its nearest
//     centre.
//  2. Each query row probes the p lists of its p nearest centres and
//     takes the k nearest of their rows, found exactly (Search's blocked
//     way, list by list, on every core), ties by lower index. A row whose
//     lists hold fewer than k rows is searched exactly.
//  3. p is the smallest power of two for which the search finds at least
//     Recall of the exact k nearest of up to 500 tuning rows; the reported
//     recall is measured afterwards on up to Sample other query rows
//     (the same rows when there are not enough).
//
// The distances returned are Dist's, as Search's: a neighbour found is
// measured exactly, so where the search finds all k nearest of a row, the
// row is Search's to the bit. The result depends on the seed, not on the
// cores. Memory O(Q·(k + p) + R + L·D) beyond the rows, as the steps
// pack at most chunkRows rows at once. Progress gets the fraction of the
// probing done. Rows too large for squared distances are refused as
// Search refuses them.
func SearchApprox(ctx context.Context, ref, query *mat.Dense, k int, o ApproxOptions, progress func(float64)) (*Neighbours, ApproxReport, error) {
	r, d := ref.Dims()
	q, dq := query.Dims()
	if err := checkSearch(r, d, dq, k, false); err != nil {
		return nil, ApproxReport{}, err
	}
	o.Recall = cmp.Or(o.Recall, DefaultRecall)
	o.Sample = cmp.Or(o.Sample, DefaultSample)
	if !(o.Recall > 0 && o.Recall <= 1) || o.Sample < 1 {
		return nil, ApproxReport{}, fmt.Errorf("knn: the recall target must be in (0, 1] and the sample at least 1 row, not %g and %d", o.Recall, o.Sample)
	}
	rng := rand.New(rand.NewPCG(o.Seed, 0x6b6e6e))
	lists := max(1, int(math.Round(math.Sqrt(float64(r)))))
	cent, err := placeCentres(ctx, ref, lists, rng)
	if err != nil {
		return nil, ApproxReport{}, fmt.Errorf("knn: placing the lists' centres: %w", err)
	}
	inv, err := newInvertedLists(ctx, ref, cent)
	if err != nil {
		return nil, ApproxReport{}, err
	}
	rep := ApproxReport{Lists: lists}

	// The tuning and measuring rows, disjoint when there are enough.
	perm := rng.Perm(q)
	measured := perm[:min(q, o.Sample)]
	tuning := perm[len(measured):min(q, len(measured)+500)]
	if len(tuning) == 0 {
		tuning = measured
	}
	slices.Sort(measured)
	slices.Sort(tuning)
	both := append(slices.Clone(tuning), measured...)
	exact, err := searchChunked(ctx, ref, gatherRows(query, both), k)
	if err != nil {
		return nil, ApproxReport{}, err
	}
	tq := gatherRows(query, tuning)
	probes := min(lists, maxProbes)
	cprobe, err := nearestCentres(ctx, cent, tq, probes)
	if err != nil {
		return nil, ApproxReport{}, err
	}
	rep.Probes = 1
	for ; rep.Probes < probes; rep.Probes *= 2 {
		got, _, err := inv.search(ctx, ref, tq, cprobe, rep.Probes, k, nil)
		if err != nil {
			return nil, ApproxReport{}, err
		}
		if recall(got, exact, 0, len(tuning)) >= o.Recall {
			break
		}
	}
	rep.Probes = min(rep.Probes, probes)

	qprobe, err := nearestCentres(ctx, cent, query, rep.Probes)
	if err != nil {
		return nil, ApproxReport{}, err
	}
	out, short, err := inv.search(ctx, ref, query, qprobe, rep.Probes, k, progress)
	if err != nil {
		return nil, ApproxReport{}, err
	}
	if err := refine(ctx, ref, query, out, short); err != nil {
		return nil, ApproxReport{}, err
	}
	rep.Refined = len(short)
	got := &Neighbours{Queries: len(measured), K: k, Index: make([]int32, len(measured)*k), Dist: make([]float64, len(measured)*k)}
	for t, i := range measured {
		idx, dist := out.Row(i)
		copy(got.Index[t*k:], idx)
		copy(got.Dist[t*k:], dist)
	}
	rep.Sample = len(measured)
	rep.Recall = recall(got, exact, len(tuning), len(measured))
	return out, rep, nil
}

// recall is the share of the exact neighbours of rows off…off+n−1 of
// exact that got's rows 0…n−1 hold.
func recall(got, exact *Neighbours, off, n int) float64 {
	found := 0
	for t := range n {
		g, _ := got.Row(t)
		e, _ := exact.Row(off + t)
		for _, j := range e {
			if slices.Contains(g, j) {
				found++
			}
		}
	}
	return float64(found) / float64(n*exact.K)
}

// placeCentres places the lists' centres by Lloyd's iterations on
// samplePerList·lists sampled reference rows, from lists of them drawn at
// random. A list left empty takes the sampled row farthest from its centre.
func placeCentres(ctx context.Context, ref *mat.Dense, lists int, rng *rand.Rand) (*mat.Dense, error) {
	r, d := ref.Dims()
	rows := rng.Perm(r)[:min(r, samplePerList*lists)]
	slices.Sort(rows)
	sample := gatherRows(ref, rows)
	s := len(rows)
	cent := mat.NewDense(lists, d, nil)
	for c, i := range rng.Perm(s)[:lists] {
		cent.SetRow(c, sample.RawRowView(i))
	}
	owner := make([]int32, s)
	for it := range kmeansIters {
		nn, err := nearestCentres(ctx, cent, sample, 1)
		if err != nil {
			return nil, err
		}
		if it > 0 && slices.Equal(owner, nn.Index) {
			break
		}
		copy(owner, nn.Index)
		count := make([]int, lists)
		cent.Zero()
		for i, c := range owner {
			count[c]++
			row := cent.RawRowView(int(c))
			for j, v := range sample.RawRowView(i) {
				row[j] += v
			}
		}
		far := farthestFirst(nn)
		for c := range lists {
			row := cent.RawRowView(c)
			if count[c] == 0 {
				copy(row, sample.RawRowView(far[0]))
				far = far[1:]
				continue
			}
			for j := range row {
				row[j] /= float64(count[c])
			}
		}
	}
	return cent, nil
}

// farthestFirst orders the query rows of nn (one neighbour each) by their
// distance, farthest first, ties by lower index.
func farthestFirst(nn *Neighbours) []int {
	order := make([]int, nn.Queries)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(nn.Dist[b], nn.Dist[a]) })
	return order
}

// nearestCentres finds the p nearest centres of each row of x, chunkRows
// rows at a time.
func nearestCentres(ctx context.Context, cent, x *mat.Dense, p int) (*Neighbours, error) {
	n, _ := x.Dims()
	out := &Neighbours{Queries: n, K: p, Index: make([]int32, n*p), Dist: make([]float64, n*p)}
	for i0 := 0; i0 < n; i0 += chunkRows {
		i1 := min(n, i0+chunkRows)
		nn, err := searchBrute(ctx, cent, x.Slice(i0, i1, 0, x.RawMatrix().Cols).(*mat.Dense), p, false, nil)
		if err != nil {
			return nil, err
		}
		copy(out.Index[i0*p:], nn.Index)
		copy(out.Dist[i0*p:], nn.Dist)
	}
	return out, nil
}

// searchChunked is Search's blocked way with the reference rows taken
// chunkRows at a time, their k nearest merged: the same neighbours.
func searchChunked(ctx context.Context, ref, query *mat.Dense, k int) (*Neighbours, error) {
	r, d := ref.Dims()
	q, _ := query.Dims()
	out := emptyNeighbours(q, k)
	for j0 := 0; j0 < r; j0 += chunkRows {
		j1 := min(r, j0+chunkRows)
		nn, err := searchBrute(ctx, ref.Slice(j0, j1, 0, d).(*mat.Dense), query, min(k, j1-j0), false, nil)
		if err != nil {
			return nil, err
		}
		for i := range q {
			idx, dist := nn.Row(i)
			out.merge(i, idx, dist, func(t int32) int32 { return t + int32(j0) })
		}
	}
	return out, nil
}

// emptyNeighbours is a result of q rows of k neighbours none of which is
// found yet (index −1, distance +Inf).
func emptyNeighbours(q, k int) *Neighbours {
	out := &Neighbours{Queries: q, K: k, Index: make([]int32, q*k), Dist: make([]float64, q*k)}
	for i := range out.Index {
		out.Index[i], out.Dist[i] = -1, math.Inf(1)
	}
	return out
}

// merge takes into row i, nearest first, the k nearest of its neighbours
// and of the candidates idx (mapped to reference rows by global) at
// distances dist, themselves nearest first; equal distances by lower
// reference row.
func (n *Neighbours) merge(i int, idx []int32, dist []float64, global func(int32) int32) {
	k := n.K
	oi, od := n.Row(i)
	var bi [64]int32
	var bd [64]float64
	ci, cd := bi[:0], bd[:0]
	if k > len(bi) {
		ci, cd = make([]int32, 0, k), make([]float64, 0, k)
	}
	a, b := 0, 0
	for len(ci) < k && (a < k && oi[a] >= 0 || b < len(idx)) {
		takeOld := b == len(idx)
		if !takeOld && a < k && oi[a] >= 0 {
			gb := global(idx[b])
			takeOld = od[a] < dist[b] || od[a] == dist[b] && oi[a] < gb
		}
		if takeOld {
			ci, cd = append(ci, oi[a]), append(cd, od[a])
			a++
		} else {
			ci, cd = append(ci, global(idx[b])), append(cd, dist[b])
			b++
		}
	}
	copy(oi, ci)
	copy(od, cd)
}

// invertedLists holds each list's reference rows, in order.
type invertedLists struct {
	start []int   // list c's rows are rows[start[c]:start[c+1]]
	rows  []int32 // reference row indices, list by list
}

// newInvertedLists puts each reference row in the list of its nearest
// centre.
func newInvertedLists(ctx context.Context, ref, cent *mat.Dense) (*invertedLists, error) {
	own, err := nearestCentres(ctx, cent, ref, 1)
	if err != nil {
		return nil, fmt.Errorf("knn: assigning the reference rows to lists: %w", err)
	}
	lists, _ := cent.Dims()
	start := bucketStarts(own.Index, lists)
	rows := make([]int32, len(own.Index))
	next := slices.Clone(start[:lists])
	for i, c := range own.Index {
		rows[next[c]] = int32(i)
		next[c]++
	}
	return &invertedLists{start: start, rows: rows}, nil
}

// bucketStarts returns, for values in 0…buckets−1, where each bucket
// starts in the values sorted by bucket (and, last, len(values)).
func bucketStarts(values []int32, buckets int) []int {
	start := make([]int, buckets+1)
	for _, c := range values {
		start[c+1]++
	}
	for c := range buckets {
		start[c+1] += start[c]
	}
	return start
}

// search finds the k nearest of each query row among the rows of its
// first p probed lists (probes, p or more a row), list by list, and
// returns them with the query rows whose lists held fewer than k rows.
func (inv *invertedLists) search(ctx context.Context, ref, query *mat.Dense, probes *Neighbours, p, k int, progress func(float64)) (*Neighbours, []int, error) {
	q, _ := query.Dims()
	lists := len(inv.start) - 1
	// The query rows probing each list, in order.
	probed := make([]int32, 0, q*p)
	for i := range q {
		idx, _ := probes.Row(i)
		probed = append(probed, idx[:p]...)
	}
	qstart := bucketStarts(probed, lists)
	qrows := make([]int32, len(probed))
	next := slices.Clone(qstart[:lists])
	for t, c := range probed {
		qrows[next[c]] = int32(t / p)
		next[c]++
	}
	out := emptyNeighbours(q, k)
	done := 0
	for c := range lists {
		members := inv.rows[inv.start[c]:inv.start[c+1]]
		queries := qrows[qstart[c]:qstart[c+1]]
		done += len(queries)
		if len(members) == 0 || len(queries) == 0 {
			continue
		}
		nn, err := searchBrute(ctx, gatherRows(ref, members), gatherRows(query, queries), min(k, len(members)), false, nil)
		if err != nil {
			return nil, nil, err
		}
		for t, i := range queries {
			idx, dist := nn.Row(t)
			out.merge(int(i), idx, dist, func(j int32) int32 { return members[j] })
		}
		if progress != nil {
			progress(float64(done) / float64(len(probed)))
		}
	}
	var short []int
	for i := range q {
		if out.Index[i*k+k-1] < 0 {
			short = append(short, i)
		}
	}
	return out, short, nil
}

// refine searches the query rows rows exactly and writes their
// neighbours into out.
func refine(ctx context.Context, ref, query *mat.Dense, out *Neighbours, rows []int) error {
	if len(rows) == 0 {
		return nil
	}
	nn, err := searchChunked(ctx, ref, gatherRows(query, rows), out.K)
	if err != nil {
		return err
	}
	for t, i := range rows {
		idx, dist := nn.Row(t)
		copy(out.Index[i*out.K:], idx)
		copy(out.Dist[i*out.K:], dist)
	}
	return nil
}

// gatherRows copies the rows of x at the indices rows (at least one), in
// that order.
func gatherRows[I int | int32](x *mat.Dense, rows []I) *mat.Dense {
	_, d := x.Dims()
	out := mat.NewDense(len(rows), d, nil)
	for t, i := range rows {
		copy(out.RawRowView(t), x.RawRowView(int(i)))
	}
	return out
}
