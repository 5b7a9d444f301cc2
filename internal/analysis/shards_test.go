package analysis_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/analysis"
	"mldr/internal/sparse"
)

// Fitting from row shards against the in-memory fit. Each data set is cut
// into row shards (1, 2, 4 of them, and uneven ones, the first of a single
// row), each shard's statistics formed from its dense or sparse features
// (ShardStats), merged (Merge), solved (FitFromPartial) and the rows
// projected shard by shard (ProjectShard). The result must be Fit's on
// the whole: eigenvalues to 1e-10 relative, the span of the directions to
// sin θ ≤ 1e-8 where the spectrum has a gap (compareModels, sparse_test.go),
// and the projected rows to 1e-9 of their largest magnitude.

// shardProjTol is the tolerance of the projected rows, relative to their
// largest magnitude: the model's means come from the merge, which rounds
// differently from the in-memory column sums.
const shardProjTol = 1e-9

// shardCut is a way to cut N rows into shards: their sizes, and whether
// each shard's features are given dense or sparse.
type shardCut struct {
	name  string
	sizes func(n int) []int
	form  func(i int) string // "dense" or "sparse" for shard i
}

func dense(int) string   { return "dense" }
func sparsed(int) string { return "sparse" }
func mixed(i int) string {
	if i%2 == 0 {
		return "sparse"
	}
	return "dense"
}

// even cuts n rows into k shards of sizes differing by at most one.
func even(k int) func(n int) []int {
	return func(n int) []int {
		out := make([]int, k)
		for i := range k {
			out[i] = (n*(i+1))/k - (n*i)/k
		}
		return out
	}
}

// uneven cuts one row, then 7, then a third, then the rest.
func uneven(n int) []int { return []int{1, 7, n / 3, n - 8 - n/3} }

// shardCuts are the cuts compared on every data set and method; under the
// race detector, which slows numeric code 5–10 times, two of them.
func shardCuts() []shardCut {
	all := []shardCut{
		{"1-dense", even(1), dense},
		{"2-dense", even(2), dense},
		{"4-dense", even(4), dense},
		{"4-sparse", even(4), sparsed},
		{"uneven-dense", uneven, dense},
		{"uneven-mixed", uneven, mixed},
	}
	if analysis.RaceEnabled {
		return []shardCut{all[2], all[5]}
	}
	return all
}

// shards cuts in's rows as cut says.
func shards(in analysis.Input, cut shardCut) []analysis.Input {
	n, d := in.X.Dims()
	_, q := in.Y.Dims()
	var out []analysis.Input
	lo := 0
	for i, size := range cut.sizes(n) {
		s := analysis.Input{X: mat.DenseCopyOf(in.X.Slice(lo, lo+size, 0, d)), Y: mat.DenseCopyOf(in.Y.Slice(lo, lo+size, 0, q)), Classes: in.Classes}
		if cut.form(i) == "sparse" {
			s.X, s.Sparse = nil, sparse.FromDense(s.X)
		}
		out = append(out, s)
		lo += size
	}
	return out
}

// shardFit forms, merges and fits the shards' statistics in order, and
// projects the rows shard by shard, stacked.
func shardFit(t *testing.T, id string, p analysis.Params, parts []analysis.Input) (*analysis.Model, *mat.Dense) {
	t.Helper()
	var merged *analysis.Partial
	for i, s := range parts {
		part, err := analysis.ShardStats(t.Context(), id, p, s, nil)
		if err != nil {
			t.Fatalf("ShardStats(%s) of shard %d: %v", id, i, err)
		}
		if merged == nil {
			merged = part
		} else if err := merged.Merge(part); err != nil {
			t.Fatalf("Merge of shard %d: %v", i, err)
		}
	}
	m, err := analysis.FitFromPartial(t.Context(), id, p, merged, nil)
	if err != nil {
		t.Fatalf("FitFromPartial(%s): %v", id, err)
	}
	if m.Projected != nil {
		t.Fatalf("FitFromPartial gave %d projected rows, want none (ProjectShard projects them)", m.Projected.RawMatrix().Rows)
	}
	var rows []*mat.Dense
	total := 0
	for i, s := range parts {
		z, err := analysis.ProjectShard(t.Context(), m, s)
		if err != nil {
			t.Fatalf("ProjectShard of shard %d: %v", i, err)
		}
		rows = append(rows, z)
		total += z.RawMatrix().Rows
	}
	_, c := rows[0].Dims()
	out := mat.NewDense(total, c, nil)
	at := 0
	for _, z := range rows {
		r, _ := z.Dims()
		out.Slice(at, at+r, 0, c).(*mat.Dense).Copy(z)
		at += r
	}
	return m, out
}

// shardSet is a data set of the comparison: in is cut into shards, ref
// gives the reference fit (in itself, or in shifted, see largeMeans).
type shardSet struct {
	name    string
	in, ref analysis.Input
}

// shardData is the golden data sets (yeast, emotions and the
// multi-dimensional edm and song; topGoldenData), scene, and a data set
// whose features have large means and a small spread.
func shardData(t *testing.T) []shardSet {
	t.Helper()
	var out []shardSet
	for _, ds := range topGoldenData(t) {
		out = append(out, shardSet{ds.name, ds.in, ds.in})
	}
	scene, _ := sparseData(t, "scene/scene.csv")
	return append(out, shardSet{"scene", scene, scene}, largeMeans())
}

// largeMeans is seeded multi-label data whose features are 10⁶·(j+1) plus
// a spread of about 0.1 to 3: Σx² is up to 10¹⁴ times the centred
// Σ(x − μ)², so XᵀX − N·μμᵀ would keep at most 2 of the 16 digits. Its
// reference is the in-memory fit of the same rows less 10⁶·(j+1) (exact:
// x and the offset are within a factor of 2): the statistics the methods
// use do not change with the shift, but the in-memory fit of the rows as
// they are carries the rounding error of its column sums, about
// √N·u·|μ| = 10⁻⁸ of the spread, into XcᵀL (the shard fits refine their
// means, see refineMean). cplst and occa use X uncentred, so they are
// compared on the rows as they are (where both refuse them).
func largeMeans() shardSet {
	const n, d, q = 500, 12, 5
	rng := rand.New(rand.NewPCG(16, 3))
	x := mat.NewDense(n, d, nil)
	shifted := mat.NewDense(n, d, nil)
	y := mat.NewDense(n, q, nil)
	for i := range n {
		z := [2]float64{rng.NormFloat64(), rng.NormFloat64()}
		for j := range d {
			x.Set(i, j, 1e6*float64(j+1)+z[j%2]*float64(j+1)/4+0.1*rng.NormFloat64())
			shifted.Set(i, j, x.At(i, j)-1e6*float64(j+1))
		}
		for l := range q {
			if z[l%2]+0.5*rng.NormFloat64() > 0.2*float64(l) {
				y.Set(i, l, 1)
			}
		}
	}
	return shardSet{"large-means", analysis.Input{X: x, Y: y}, analysis.Input{X: shifted, Y: y}}
}

// reference is the in-memory fit the shards' is compared with.
func (ds shardSet) reference(t *testing.T, id string, p analysis.Params) (*analysis.Model, error) {
	t.Helper()
	ref := ds.ref
	if id == "cplst" || id == "occa" {
		ref = ds.in
	}
	return analysis.Fit(t.Context(), id, ref, p, nil)
}

// shardParams are the parameters compared for method m on in: d small
// against the method's order, and mddmp with both shardable kernels.
func shardParams(m analysis.Method, in analysis.Input) []analysis.Params {
	p := analysis.Params{D: topD(m, in)}
	if m.ID == "mddmp" {
		return []analysis.Params{p, {D: p.D, LabelKernel: analysis.KernelQuadratic}}
	}
	return []analysis.Params{p}
}

func TestShardsMatchInMemory(t *testing.T) {
	for _, ds := range shardData(t) {
		for _, m := range analysis.Methods() {
			if ds.in.MultiDim() && !m.MultiDim || !ds.in.MultiDim() && !m.MultiLabel {
				continue
			}
			for _, p := range shardParams(m, ds.in) {
				if analysis.Shardable(m.ID, p) != nil {
					continue
				}
				want, refused := ds.reference(t, m.ID, p)
				for _, cut := range shardCuts() {
					t.Run(fmt.Sprintf("%s/%s%s/%s", ds.name, m.ID, p.LabelKernel, cut.name), func(t *testing.T) {
						if refused != nil {
							// The fit from shards refuses what the in-memory fit refuses.
							part := mergedStats(t, m.ID, p, shards(ds.in, cut))
							if _, err := analysis.FitFromPartial(t.Context(), m.ID, p, part, nil); err == nil || err.Error() != refused.Error() {
								t.Fatalf("got %v, want the in-memory fit's refusal %q", err, refused)
							}
							return
						}
						got, proj := shardFit(t, m.ID, p, shards(ds.in, cut))
						compareModels(t, got, want, ds.in.X)
						compareProjected(t, proj, want, ds.in.X, got.P())
					})
				}
			}
		}
	}
}

// compareProjected requires the rows projected shard by shard to be the
// in-memory fit's, column by column up to sign (an eigenvector's sign is
// fixed by its largest entry, which the merge's rounding may flip when two
// are close), over the columns whose span is defined (gapped). The
// tolerance is relative to the largest projected value, or to the largest
// entry of |X|·|P| when that is larger: X·P rounds each product to about
// u of it, which the centring cannot recover (large means).
func compareProjected(t *testing.T, got *mat.Dense, want *analysis.Model, x *mat.Dense, p *mat.Dense) {
	t.Helper()
	gr, gc := got.Dims()
	wr, wc := want.Projected.Dims()
	if gr != wr || gc != wc {
		t.Fatalf("projected rows: got %d×%d, want %d×%d", gr, gc, wr, wc)
	}
	k := gc
	if len(want.Blocks) == 0 {
		k = gapped(want.Eigenvalues, want.Dim)
	}
	var ax, ap, bound mat.Dense
	ax.Apply(func(_, _ int, v float64) float64 { return math.Abs(v) }, x)
	ap.Apply(func(_, _ int, v float64) float64 { return math.Abs(v) }, p)
	scale := max(maxAbs(want.Projected), 1e-300)
	if want.Space == analysis.FeatureSpace {
		bound.Mul(&ax, &ap)
		scale = max(scale, maxAbs(&bound))
	}
	for j := range k {
		plus, minus := 0.0, 0.0
		for i := range gr {
			g, w := got.At(i, j), want.Projected.At(i, j)
			plus, minus = max(plus, math.Abs(g-w)), max(minus, math.Abs(g+w))
		}
		if e := min(plus, minus) / scale; !(e <= shardProjTol) {
			t.Errorf("projected column %d: differs from the in-memory fit's by %.3g of its largest magnitude, want ≤ %.0e", j+1, e, shardProjTol)
		}
	}
}

// TestShardsMergeOrder merges four shards' statistics in several orders
// (in order, reversed, as a tree) and requires the same fit from each.
func TestShardsMergeOrder(t *testing.T) {
	wide := topWide()
	data := []shardSet{largeMeans(), {wide.name, wide.in, wide.in}}
	for _, ds := range data {
		for _, id := range []string{"cca", "mvmd"} {
			t.Run(ds.name+"/"+id, func(t *testing.T) {
				p := analysis.Params{D: 3}
				parts := shards(ds.in, shardCut{"uneven-mixed", uneven, mixed})
				stats := func() []*analysis.Partial {
					var out []*analysis.Partial
					for _, s := range parts {
						part, err := analysis.ShardStats(t.Context(), id, p, s, nil)
						if err != nil {
							t.Fatal(err)
						}
						out = append(out, part)
					}
					return out
				}
				merge := func(a, b *analysis.Partial) *analysis.Partial {
					if err := a.Merge(b); err != nil {
						t.Fatal(err)
					}
					return a
				}
				orders := map[string]func() *analysis.Partial{
					"in order": func() *analysis.Partial { s := stats(); return merge(merge(merge(s[0], s[1]), s[2]), s[3]) },
					"reversed": func() *analysis.Partial { s := stats(); return merge(merge(merge(s[3], s[2]), s[1]), s[0]) },
					"tree":     func() *analysis.Partial { s := stats(); return merge(merge(s[2], s[0]), merge(s[1], s[3])) },
				}
				want, err := ds.reference(t, id, p)
				if err != nil {
					t.Fatal(err)
				}
				for name, order := range orders {
					part := order()
					if n, _ := ds.in.X.Dims(); part.Rows() != n {
						t.Errorf("%s: the merged statistics cover %d rows, want %d", name, part.Rows(), n)
					}
					got, err := analysis.FitFromPartial(t.Context(), id, p, part, nil)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					t.Run(strings.ReplaceAll(name, " ", "-"), func(t *testing.T) { compareModels(t, got, want, ds.in.X) })
				}
			})
		}
	}
}

// TestShardsOneStatisticsManyMethods fits every method cca's statistics
// contain from them (XcᵀXc, XcᵀY and YcᵀYc of binary labels) and requires
// each method's in-memory fit, and the statistics unchanged after.
func TestShardsOneStatisticsManyMethods(t *testing.T) {
	ds := topWide()
	part := mergedStats(t, "cca", analysis.Params{}, shards(ds.in, shardCut{"4-dense", even(4), dense}))
	var before bytes.Buffer
	if _, err := part.WriteTo(&before); err != nil {
		t.Fatal(err)
	}
	defer func() { // no fit changes the statistics it is served
		var after bytes.Buffer
		if _, err := part.WriteTo(&after); err != nil || !bytes.Equal(after.Bytes(), before.Bytes()) {
			t.Errorf("the statistics changed while fitted from (%v)", err)
		}
	}()
	for _, id := range []string{"pca", "mddmp", "mddmf", "mvmd", "mlsi", "cca", "lda", "plst", "cplst", "occa"} {
		t.Run(id, func(t *testing.T) {
			m, _ := analysis.Lookup(id)
			p := analysis.Params{D: topD(m, ds.in)}
			want, err := analysis.Fit(t.Context(), id, ds.in, p, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := analysis.FitFromPartial(t.Context(), id, p, part, nil)
			if err != nil {
				t.Fatal(err)
			}
			compareModels(t, got, want, ds.in.X)
		})
	}
}

// mergedStats forms and merges the statistics of parts for id.
func mergedStats(t *testing.T, id string, p analysis.Params, parts []analysis.Input) *analysis.Partial {
	t.Helper()
	var merged *analysis.Partial
	for _, s := range parts {
		part, err := analysis.ShardStats(t.Context(), id, p, s, nil)
		if err != nil {
			t.Fatalf("ShardStats(%s): %v", id, err)
		}
		if merged == nil {
			merged = part
		} else if err := merged.Merge(part); err != nil {
			t.Fatal(err)
		}
	}
	return merged
}

// TestShardsRefusals: what cannot be fitted from shards, or merged, is
// refused with a sentence naming the method and the reason.
func TestShardsRefusals(t *testing.T) {
	ml := largeMeans().ref
	md := tuMultiDimInput()
	wide := topWide().in
	for _, id := range []string{"lpp", "kcplst", "mds", "mlda", "ge-hamming", "ge-euclid-y", "ge-gh", "ge-euclid-x"} {
		t.Run("not shardable/"+id, func(t *testing.T) {
			_, err := analysis.ShardStats(t.Context(), id, analysis.Params{}, ml, nil)
			wantRefusal(t, err, analysis.Unservable, "method", id+" cannot be fitted from row shards: ")
			m, _ := analysis.Lookup(id)
			if m.MaxNWhy != "" && !strings.Contains(err.Error(), "pair of rows") {
				t.Errorf("got %q, want the reason to name the pairs of rows", err)
			}
			wantRefusal(t, analysis.Shardable(id, analysis.Params{}), analysis.Unservable, "method", "cannot be fitted from row shards")
		})
	}
	pca := mergedStats(t, "pca", analysis.Params{}, shards(ml, shardCut{"2", even(2), dense}))
	mddmp := mergedStats(t, "mddmp", analysis.Params{}, shards(ml, shardCut{"2", even(2), dense}))
	quad := mergedStats(t, "mddmp", analysis.Params{LabelKernel: analysis.KernelQuadratic}, shards(ml, shardCut{"2", even(2), dense}))
	onehot := mergedStats(t, "sdem", analysis.Params{}, shards(md, shardCut{"2", even(2), dense}))
	oneRow := mergedStats(t, "pca", analysis.Params{}, shards(ml, shardCut{"uneven", uneven, dense})[:1])
	wider := mergedStats(t, "pca", analysis.Params{}, shards(wide, shardCut{"2", even(2), dense}))
	cases := []struct {
		name  string
		err   func() error
		kind  analysis.ErrorKind
		param string
		want  string
	}{
		{"rbf kernel", func() error {
			_, err := analysis.ShardStats(t.Context(), "mddmp", analysis.Params{LabelKernel: analysis.KernelRBF}, ml, nil)
			return err
		}, analysis.Unservable, analysis.ParamLabelKernel, "distinct label sets of all the rows"},
		{"unknown method", func() error {
			_, err := analysis.ShardStats(t.Context(), "nope", analysis.Params{}, ml, nil)
			return err
		}, analysis.Invalid, "method", `unknown method "nope"`},
		{"other columns", func() error { return pca.Merge(wider) }, analysis.Invalid, "",
			"a shard of 260 feature columns into those of 12"},
		{"other spec", func() error { return pca.Merge(mddmp) }, analysis.Invalid, "",
			"cannot merge statistics formed for mddmp (XcᵀL of 5 binary label columns) into statistics formed for pca (XcᵀXc): merge only the shards of one fit"},
		{"other labels", func() error { return mddmp.Merge(quad) }, analysis.Invalid, "",
			"formed for mddmp (XcᵀL of 15 quadratic label columns) into statistics formed for mddmp (XcᵀL of 5 binary label columns)"},
		{"missing gram", func() error {
			_, err := analysis.FitFromPartial(t.Context(), "mlsi", analysis.Params{}, mddmp, nil)
			return err
		}, analysis.Invalid, "", "these partial statistics hold XcᵀL of 5 binary label columns (formed for mddmp), but mlsi needs XcᵀXc: form the shards' statistics for mlsi"},
		{"missing labels", func() error {
			_, err := analysis.FitFromPartial(t.Context(), "mddmp", analysis.Params{}, pca, nil)
			return err
		}, analysis.Invalid, "", "but mddmp needs XcᵀL of 5 binary label columns"},
		{"other label kind", func() error {
			_, err := analysis.FitFromPartial(t.Context(), "mddmp", analysis.Params{}, quad, nil)
			return err
		}, analysis.Invalid, "", "but mddmp needs XcᵀL of 5 binary label columns"},
		{"multi-dimensional for mddmp", func() error {
			_, err := analysis.FitFromPartial(t.Context(), "mddmp", analysis.Params{}, onehot, nil)
			return err
		}, analysis.Unservable, "method", "mddmp needs multi-label data, and these are multi-dimensional"},
		{"one row", func() error {
			_, err := analysis.FitFromPartial(t.Context(), "pca", analysis.Params{}, oneRow, nil)
			return err
		}, analysis.Unservable, "", "these partial statistics cover 1: merge the other shards' statistics first"},
		{"d above the rank", func() error {
			_, err := analysis.FitFromPartial(t.Context(), "mddmp", analysis.Params{D: 9}, mddmp, nil)
			return err
		}, analysis.Unservable, analysis.ParamD, "d = 9 exceeds the rank of XᵀHY"},
		{"non-finite shard", func() error {
			bad := shards(ml, shardCut{"2", even(2), dense})[0]
			bad.X.Set(3, 2, math.NaN())
			_, err := analysis.ShardStats(t.Context(), "pca", analysis.Params{}, bad, nil)
			return err
		}, analysis.Invalid, "", "feature 3 of row 4 is NaN"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { wantRefusal(t, c.err(), c.kind, c.param, c.want) })
	}
	// A refused merge changes nothing.
	if n, _ := ml.X.Dims(); pca.Rows() != n {
		t.Errorf("after refused merges the statistics cover %d rows, want %d", pca.Rows(), n)
	}
}

// tuMultiDimInput is seeded multi-dimensional data (two class variables).
func tuMultiDimInput() analysis.Input {
	const n, d = 120, 6
	rng := rand.New(rand.NewPCG(16, 5))
	x := mat.NewDense(n, d, nil)
	y := mat.NewDense(n, 2, nil)
	for i := range n {
		for j := range d {
			x.Set(i, j, rng.NormFloat64()+float64(i%3)*float64(j%2))
		}
		y.Set(i, 0, float64(i%3))
		y.Set(i, 1, float64((i/2)%2))
	}
	return analysis.Input{X: x, Y: y, Classes: []int{3, 2}}
}

// wantRefusal requires err to be an *analysis.Error of kind and param
// whose message contains want.
func wantRefusal(t *testing.T, err error, kind analysis.ErrorKind, param, want string) {
	t.Helper()
	var e *analysis.Error
	if !errors.As(err, &e) {
		t.Fatalf("got %v, want an *analysis.Error containing %q", err, want)
	}
	if e.Kind != kind || e.Param != param || !strings.Contains(e.Msg, want) {
		t.Errorf("got kind %d, param %q, %q; want kind %d, param %q, containing %q", e.Kind, e.Param, e.Msg, kind, param, want)
	}
}

// TestPartialRoundTrip writes statistics and reads them back: the same
// fit, bit for bit; and a damaged, truncated or foreign stream is refused.
func TestPartialRoundTrip(t *testing.T) {
	ds := topWide()
	for _, id := range []string{"cca", "mddmp", "sdem"} {
		in := ds.in
		if id == "sdem" {
			in = tuMultiDimInput()
		}
		t.Run(id, func(t *testing.T) {
			part := mergedStats(t, id, analysis.Params{}, shards(in, shardCut{"2", even(2), mixed}))
			var buf bytes.Buffer
			n, err := part.WriteTo(&buf)
			if err != nil || n != int64(buf.Len()) {
				t.Fatalf("WriteTo: got %d bytes, %v; want %d, nil", n, err, buf.Len())
			}
			if int64(buf.Len()) > part.Size()+4096 {
				t.Errorf("wrote %d bytes, more than Size %d and a header", buf.Len(), part.Size())
			}
			back, err := analysis.ReadPartial(bytes.NewReader(buf.Bytes()))
			if err != nil {
				t.Fatalf("ReadPartial: %v", err)
			}
			if back.Rows() != part.Rows() || back.Features() != part.Features() || back.Method() != id {
				t.Errorf("read back %d rows, %d features for %s; want %d, %d for %s", back.Rows(), back.Features(), back.Method(), part.Rows(), part.Features(), id)
			}
			want, err := analysis.FitFromPartial(t.Context(), id, analysis.Params{D: 1}, part, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := analysis.FitFromPartial(t.Context(), id, analysis.Params{D: 1}, back, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.Eigenvalues, want.Eigenvalues) || !mat.Equal(got.Basis, want.Basis) || !slices.Equal(got.Means, want.Means) {
				t.Errorf("the fit from the statistics read back differs from the fit from those written")
			}
			// The fits left the statistics as they were.
			var again bytes.Buffer
			if _, err := part.WriteTo(&again); err != nil || !bytes.Equal(again.Bytes(), buf.Bytes()) {
				t.Errorf("the statistics changed while fitted from (%v)", err)
			}
			raw := buf.Bytes()
			flip := slices.Clone(raw)
			flip[len(flip)/2] ^= 1
			version := slices.Clone(raw)
			version[8] = 2
			for _, c := range []struct {
				name string
				data []byte
				want string
			}{
				{"damaged", flip, "the partial statistics are damaged: their CRC-32C is"},
				{"truncated", raw[:len(raw)-9], "the file is truncated"},
				{"no checksum", raw[:len(raw)-4], "end before its checksum"},
				{"version", version, "partial statistics of version 2; this build reads version 1"},
				{"foreign", []byte("MLDRDS\x00\x00 and then something else"), `not partial statistics: the stream starts with "MLDRDS\x00\x00"`},
				{"empty", nil, "end before its first 16 bytes"},
			} {
				_, err := analysis.ReadPartial(bytes.NewReader(c.data))
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
				}
			}
		})
	}
}

// FuzzReadPartial: no input makes ReadPartial panic, and what it accepts
// it writes so that it reads back to the same bytes.
func FuzzReadPartial(f *testing.F) {
	for _, id := range []string{"pca", "cca", "sdem"} {
		in := largeMeans().in
		if id == "sdem" {
			in = tuMultiDimInput()
		}
		small := analysis.Input{X: mat.DenseCopyOf(in.X.Slice(0, 5, 0, 3)), Y: mat.DenseCopyOf(in.Y.Slice(0, 5, 0, 2)), Classes: in.Classes}
		part, err := analysis.ShardStats(f.Context(), id, analysis.Params{}, small, nil)
		if err != nil {
			f.Fatal(err)
		}
		var buf bytes.Buffer
		if _, err := part.WriteTo(&buf); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := analysis.ReadPartial(bytes.NewReader(data))
		if err != nil {
			return
		}
		var once, twice bytes.Buffer
		if _, err := p.WriteTo(&once); err != nil {
			t.Fatal(err)
		}
		back, err := analysis.ReadPartial(bytes.NewReader(once.Bytes()))
		if err != nil {
			t.Fatalf("reading back what was written: %v", err)
		}
		if _, err := back.WriteTo(&twice); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(once.Bytes(), twice.Bytes()) {
			t.Errorf("wrote %d bytes, read them back and wrote %d that differ", once.Len(), twice.Len())
		}
	})
}

// TestShardsCanceled: a canceled context stops ShardStats and
// FitFromPartial with its error.
func TestShardsCanceled(t *testing.T) {
	ds := topWide()
	part := mergedStats(t, "pca", analysis.Params{}, shards(ds.in, shardCut{"2", even(2), dense}))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := analysis.ShardStats(ctx, "pca", analysis.Params{}, ds.in, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("ShardStats: got %v, want context.Canceled", err)
	}
	if _, err := analysis.FitFromPartial(ctx, "pca", analysis.Params{D: 2}, part, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("FitFromPartial: got %v, want context.Canceled", err)
	}
	if _, err := analysis.ProjectShard(ctx, &analysis.Model{}, ds.in); !errors.Is(err, context.Canceled) {
		t.Errorf("ProjectShard: got %v, want context.Canceled", err)
	}
}
