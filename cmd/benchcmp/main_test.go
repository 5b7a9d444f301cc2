package main

import (
	"io"
	"slices"
	"strings"
	"testing"
)

func TestSelectCases(t *testing.T) {
	all := allCases(1)
	for _, tc := range []struct {
		name           string
		methods, sizes []string
		want           []string // work/size of the cases kept
		wantErr        string
	}{
		{"everything", nil, nil, nil, ""},
		{"one method at every size", []string{"pca"}, nil, []string{"pca/100k", "pca/20k", "pca/wide", "pca/e2e", "pca/xc"}, ""},
		{"the wide rows", nil, []string{"wide"}, []string{"pca/wide", "mddmp/wide", "cplst/wide", "mvmd/wide"}, ""},
		{"the end-to-end rows", nil, []string{"e2e"}, []string{"pca/e2e", "mddmp/e2e"}, ""},
		{"the eval rows", nil, []string{"eval"}, []string{"scene/eval", "yeast/eval", "medical/eval"}, ""},
		{"one eval row", []string{"medical"}, []string{"eval"}, []string{"medical/eval"}, ""},
		{"the mlknn rows", nil, []string{"mlknn"}, []string{"mlknn/mlknn", "mlknn/mlknn", "mlknn/mlknn"}, ""},
		{"the default sizes leave out eval and mlknn", []string{"mlknn"}, defaultSizeList(), nil, "the eval, mlknn and xc rows run only when -sizes names them"},
		{"the xc rows", nil, []string{"xc"}, []string{"pca/xc", "mddmp/xc", "plst/xc", "cplst/xc", "all+eval/xc", "test+eval/xc"}, ""},
		{"the default sizes leave out xc", []string{"plst"}, defaultSizeList(), nil, "no work"},
		{"one wide row", []string{"cplst"}, []string{"wide"}, []string{"cplst/wide"}, ""},
		{"no such end-to-end row", []string{"cplst"}, []string{"e2e"}, nil, "no work"},
		{"methods at one size", []string{"pca", "sdem"}, []string{"100k"}, []string{"sdem/100k", "pca/100k"}, ""},
		{"the eigen case", []string{"eigen"}, nil, []string{"eigen/eigen"}, ""},
		{"unknown method", []string{"lpp"}, nil, nil, `"lpp" is not benchmarked`},
		{"unknown size", nil, []string{"1M"}, nil, `"1M" is not a size`},
		{"nothing at that size", []string{"sdem"}, []string{"20k"}, nil, "no work"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := selectCases(all, tc.methods, tc.sizes)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == nil {
				if len(got) != len(all) {
					t.Errorf("got %d cases, want all %d", len(got), len(all))
				}
				return
			}
			var names []string
			for _, c := range got {
				names = append(names, c.work+"/"+c.size.name)
			}
			if !slices.Equal(names, tc.want) {
				t.Errorf("got %v, want %v", names, tc.want)
			}
		})
	}
}

func TestAllCases(t *testing.T) {
	cs := allCases(1)
	if len(cs) != 31 {
		t.Errorf("got %d cases, want 31 (8 at 100k, 4 at 20k, eigen, 4 wide, 2 end to end, 3 eval, 3 mlknn, 6 xc)", len(cs))
	}
	for _, c := range cs {
		if (c.work == "sdem") != c.multiDim {
			t.Errorf("%s: multiDim is %v", c.work, c.multiDim)
		}
		wantKind, wantD, wantTop := kindDense, benchD, agreeTop
		switch c.size.name {
		case "wide":
			wantKind, wantD, wantTop = kindWide, 20, 20
			if s := c.size; s.n != 20_000 || s.d != 5_000 || s.q != 400 || s.density != 0.02 {
				t.Errorf("wide %s: got %+v, want 20000×5000 at 2%%, q = 400", c.work, s)
			}
		case "e2e":
			wantKind = kindE2E
			if s := c.size; s.n != 50_000 || s.d != 500 {
				t.Errorf("e2e %s: got %+v, want 50000×500", c.work, s)
			}
		case "eigen":
			wantTop = eigenK
		case "eval":
			wantKind = kindEval
			if !slices.Contains([]string{"scene", "yeast", "medical"}, c.work) {
				t.Errorf("eval: got data set %q, want scene, yeast or medical", c.work)
			}
		case "xc":
			wantKind = kindXC
			if !slices.Contains(xcMethods(), c.work) {
				t.Errorf("xc: got %s, want one of %v", c.work, xcMethods())
			}
		case "mlknn":
			wantKind = kindMLkNN
			if s := c.size; !slices.Contains([]int{10_000, 50_000, 200_000}, s.n) || s.d != 10 || s.q != 100 || c.work != workMLkNN {
				t.Errorf("mlknn: got %s on %+v, want mlknn on N = 10 000, 50 000 or 200 000, D = 10, q = 100", c.work, s)
			}
		}
		if c.kind != wantKind || c.targetD() != wantD || c.top() != wantTop {
			t.Errorf("%s/%s: got kind %d, d = %d, top %d; want %d, %d, %d", c.work, c.size.name, c.kind, c.targetD(), c.top(), wantKind, wantD, wantTop)
		}
	}
	if got := allCases(0.05)[0].size.n; got != 5000 {
		t.Errorf("scale 0.05: got N = %d, want 5000", got)
	}
}

func TestParseConfig(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		wantErr string
	}{
		{[]string{"-reps", "0"}, "-reps must be at least 1"},
		{[]string{"-scale", "2"}, "-scale must be in (0, 1]"},
		{[]string{"-tol", "0"}, "-tol must be positive"},
		{[]string{"-sparse-tol", "-1"}, "-sparse-tol must be positive"},
		{[]string{"-metrics-tol", "0"}, "-metrics-tol must be positive"},
		{[]string{"extra"}, "unexpected arguments"},
	} {
		if _, err := parseConfig(tc.args, io.Discard); err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("%q: got %v, want an error containing %q", tc.args, err, tc.wantErr)
		}
	}
	c, err := parseConfig([]string{"-methods", "pca, mddmp", "-sizes", "all"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.methods, []string{"pca", "mddmp"}) || c.sizes != nil || c.reps != 3 {
		t.Errorf("got methods %q, sizes %q, reps %d; want [pca mddmp], nil, 3", c.methods, c.sizes, c.reps)
	}
	if c, err := parseConfig(nil, io.Discard); err != nil || !slices.Equal(c.sizes, defaultSizeList()) || c.metricsTol != 1e-9 || c.xcSet != "eurlex-4k" {
		t.Errorf("no flags: got sizes %q, -metrics-tol %v, -xc %q, %v; want %q, 1e-9, eurlex-4k", c.sizes, c.metricsTol, c.xcSet, err, defaultSizeList())
	}
	if slices.Contains(defaultSizeList(), "xc") {
		t.Errorf("the default sizes %q include xc, want it run only when named", defaultSizeList())
	}
	var help strings.Builder
	if _, err := parseConfig([]string{"-help"}, &help); err == nil || strings.Contains(help.String(), "-"+childFlag+"\n") {
		t.Errorf("-help: got error %v and %q, want flag.ErrHelp and no -%s flag shown", err, help.String(), childFlag)
	}
}

func TestPythonArgs(t *testing.T) {
	got := pythonArgs("ref.py", task{Work: "sdem", X: "x.npy", Y: "y.npy", Classes: []int{10, 10}, D: 10, Reps: 3, WarmupUnder: 2, Top: 5})
	want := []string{"ref.py", "run", "--work", "sdem", "--d", "10", "--reps", "3", "--warmup-under", "2", "--top", "5",
		"--x", "x.npy", "--y", "y.npy", "--classes", "10,10"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	got = pythonArgs("ref.py", task{Work: "eigen", A: "a.npy", K: 50, D: 10, Reps: 1, WarmupUnder: 0.5, Top: 50})
	if !slices.Contains(got, "--a") || !slices.Contains(got, "--k") || slices.Contains(got, "--x") {
		t.Errorf("eigen: got %q, want --a and --k and no --x", got)
	}
	got = pythonArgs("ref.py", task{Work: "pca", Y: "y.npy", CSR: &csrFiles{Indptr: "p.npy", Indices: "i.npy", Data: "d.npy", Cols: 5000}, D: 20, Reps: 1, Top: 20})
	want = []string{"ref.py", "run", "--work", "pca", "--d", "20", "--reps", "1", "--warmup-under", "0", "--top", "20",
		"--y", "y.npy", "--csr", "p.npy,i.npy,d.npy", "--cols", "5000"}
	if !slices.Equal(got, want) {
		t.Errorf("wide: got %q, want %q", got, want)
	}
}
