package dataset_test

import (
	"encoding/csv"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"mldr/internal/dataset"
)

// datasetsDir holds the shared benchmark data sets, each in a folder with a
// SOURCE.md that gives its counts.
const datasetsDir = "../../../shared/datasets"

// realFile is what SOURCE.md says of one file.
type realFile struct {
	rows, features, labels int
	kind                   dataset.Kind
	cardinality            float64 // 0: SOURCE.md gives none for this file
	distinct               int     // distinct label sets; 0: none given
	classes                []int   // MultiDim: categories of each class variable
}

// realFiles maps a file's base name (without extension; the CSV and the ARFF
// of that name hold the same data) to its counts. Every number is quoted
// from the folder's SOURCE.md ("Counts (verified on the files here)" and
// "Train/test split"); cardinalities are given there to 4 decimals, so they
// are checked to 1e-3.
var realFiles = map[string]realFile{
	// yeast: 2417 / 103 / 14, cardinality 4.2371, 198 sets; split 1500/917.
	"yeast":       {2417, 103, 14, dataset.MultiLabel, 4.2371, 198, nil},
	"yeast-train": {1500, 103, 14, dataset.MultiLabel, 0, 0, nil},
	"yeast-test":  {917, 103, 14, dataset.MultiLabel, 0, 0, nil},
	// emotions: 593 / 72 / 6, cardinality 1.8685, 27 sets; split 391/202.
	"emotions":       {593, 72, 6, dataset.MultiLabel, 1.8685, 27, nil},
	"emotions-train": {391, 72, 6, dataset.MultiLabel, 0, 0, nil},
	"emotions-test":  {202, 72, 6, dataset.MultiLabel, 0, 0, nil},
	// scene: 2407 / 294 / 6, cardinality 1.0740, 15 sets; split 1211/1196.
	"scene":       {2407, 294, 6, dataset.MultiLabel, 1.0740, 15, nil},
	"scene-train": {1211, 294, 6, dataset.MultiLabel, 0, 0, nil},
	"scene-test":  {1196, 294, 6, dataset.MultiLabel, 0, 0, nil},
	// medical: 978 / 1449 / 45, cardinality 1.2454, 94 sets; split 333/645.
	"medical":       {978, 1449, 45, dataset.MultiLabel, 1.2454, 94, nil},
	"medical-train": {333, 1449, 45, dataset.MultiLabel, 0, 0, nil},
	"medical-test":  {645, 1449, 45, dataset.MultiLabel, 0, 0, nil},
	// enron: 1702 / 1001 / 53, cardinality 3.3784, 753 sets; split 1123/579.
	"enron":       {1702, 1001, 53, dataset.MultiLabel, 3.3784, 753, nil},
	"enron-train": {1123, 1001, 53, dataset.MultiLabel, 0, 0, nil},
	"enron-test":  {579, 1001, 53, dataset.MultiLabel, 0, 0, nil},
	// genbase: 662 rows, 1186 nominal = protein id + 1185 YES/NO motifs,
	// 27 labels, cardinality 1.2523, 32 sets; split 463/199. Loaded with
	// drop=protein and nominal=onehot (genbaseOptions).
	"genbase":       {662, 1185, 27, dataset.MultiLabel, 1.2523, 32, nil},
	"genbase-train": {463, 1185, 27, dataset.MultiLabel, 0, 0, nil},
	"genbase-test":  {199, 1185, 27, dataset.MultiLabel, 0, 0, nil},
	// Multi-dimensional: rows, features, and classes per variable.
	"edm":  {154, 16, 2, dataset.MultiDim, 0, 0, []int{3, 3}},
	"jura": {359, 9, 2, dataset.MultiDim, 0, 0, []int{4, 5}},
	"enb":  {768, 6, 2, dataset.MultiDim, 0, 0, []int{2, 4}},
	"song": {785, 98, 3, dataset.MultiDim, 0, 0, []int{3, 3, 3}},
}

// genbaseOptions load genbase: its protein column is an identifier and its
// features are YES/NO.
var genbaseOptions = dataset.Options{Drop: []string{"protein"}, Nominal: dataset.NominalOneHot}

// skipWithoutDatasets skips t when the shared data sets are not there.
func skipWithoutDatasets(t testing.TB) {
	t.Helper()
	if _, err := os.Stat(datasetsDir); os.IsNotExist(err) {
		if os.Getenv("MLDR_REQUIRE_SHARED") == "1" {
			t.Fatalf("%s does not exist (MLDR_REQUIRE_SHARED=1)", datasetsDir)
		}
		t.Skipf("%s does not exist", datasetsDir)
	}
}

// loadFile loads path with opts.
func loadFile(t testing.TB, path string, opts dataset.Options) *dataset.Dataset {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ds, err := dataset.Load(f, opts)
	if err != nil {
		t.Fatalf("Load(%s): got error %q, want none", path, err)
	}
	if err := ds.Validate(); err != nil {
		t.Fatalf("Validate(%s): got %q, want nil", path, err)
	}
	return ds
}

// labelXML reads the Mulan XML label file of a folder, or returns nil when
// the folder has none.
func labelXML(t testing.TB, dir string) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		return nil
	}
	if len(paths) > 1 {
		t.Fatalf("%s: got %d XML files, want at most 1", dir, len(paths))
	}
	f, err := os.Open(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	names, err := dataset.ParseLabelXML(f)
	if err != nil {
		t.Fatalf("ParseLabelXML(%s): got error %q, want none", paths[0], err)
	}
	return names
}

// TestRealDatasets loads every CSV and ARFF file of every shared data set
// and checks it against its SOURCE.md; an ARFF and the CSV converted from it
// must load to exactly the same data.
func TestRealDatasets(t *testing.T) {
	skipWithoutDatasets(t)
	dirs, err := filepath.Glob(filepath.Join(datasetsDir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	var checked atomic.Int64 // files checked, over the parallel subtests
	for _, dir := range dirs {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			continue
		}
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			xml := labelXML(t, dir)
			files, err := filepath.Glob(filepath.Join(dir, "*"))
			if err != nil {
				t.Fatal(err)
			}
			loaded := map[string]*dataset.Dataset{} // by file name
			for _, path := range files {
				name := filepath.Base(path)
				ext := filepath.Ext(name)
				if ext != ".csv" && ext != ".arff" {
					continue
				}
				base := strings.TrimSuffix(name, ext)
				if strings.HasSuffix(base, "-folds") {
					// A fold partition, not a data set: it has no label column.
					t.Run(name, func(t *testing.T) {
						f, err := os.Open(path)
						if err != nil {
							t.Fatal(err)
						}
						defer f.Close()
						_, err = dataset.Load(f, dataset.Options{})
						checkInputError(t, err, inputErr{Field: "labels", Msg: "no label column found"})
					})
					continue
				}
				want, ok := realFiles[base]
				if !ok {
					t.Errorf("%s: no expected counts; add them to realFiles from SOURCE.md", path)
					continue
				}
				checked.Add(1)
				t.Run(name, func(t *testing.T) {
					var opts dataset.Options
					if strings.HasPrefix(base, "genbase") {
						opts = genbaseOptions
					}
					if ext == ".arff" {
						if xml == nil {
							t.Fatalf("%s has no Mulan XML label file", dir)
						}
						opts.LabelXML = xml
					}
					ds := loadFile(t, path, opts)
					checkRealCounts(t, ds, want)
					if xml != nil {
						// Whatever chose them, the labels are those the XML lists.
						got := slices.Sorted(slices.Values(ds.Labels.Strings()))
						checkStrings(t, "sorted labels", got, slices.Sorted(slices.Values(xml)))
					}
					loaded[name] = ds
				})
			}
			for _, name := range slices.Sorted(maps.Keys(loaded)) {
				base, ok := strings.CutSuffix(name, ".arff")
				if !ok || loaded[base+".csv"] == nil {
					continue
				}
				t.Run(base+" arff=csv", func(t *testing.T) {
					checkSameData(t, loaded[name], loaded[base+".csv"])
				})
			}
		})
	}
	t.Cleanup(func() {
		if checked.Load() == 0 && !t.Failed() {
			t.Errorf("got no data set files in %s, want some", datasetsDir)
		}
	})
}

// checkRealCounts compares a loaded data set with SOURCE.md's counts.
func checkRealCounts(t *testing.T, ds *dataset.Dataset, want realFile) {
	t.Helper()
	s, det := dataset.Describe(ds)
	if s.Rows != want.rows || s.Features != want.features || s.LabelCount != want.labels {
		t.Errorf("shape: got %d rows, %d features, %d labels; want %d, %d, %d",
			s.Rows, s.Features, s.LabelCount, want.rows, want.features, want.labels)
	}
	if ds.Kind != want.kind {
		t.Errorf("Kind: got %q, want %q", ds.Kind, want.kind)
	}
	if want.cardinality != 0 {
		if s.LabelCardinality == nil {
			t.Errorf("cardinality: got nil, want %.4f", want.cardinality)
		} else if got := *s.LabelCardinality; math.Abs(got-want.cardinality) > 1e-3 {
			t.Errorf("cardinality: got %.4f, want %.4f", got, want.cardinality)
		}
	}
	if want.distinct != 0 && s.DistinctLabelsets != want.distinct {
		t.Errorf("distinct label sets: got %d, want %d", s.DistinctLabelsets, want.distinct)
	}
	if want.kind != dataset.MultiDim {
		return
	}
	if len(ds.Categories) != len(want.classes) {
		t.Fatalf("class variables: got %d, want %d", len(ds.Categories), len(want.classes))
	}
	for j, k := range want.classes {
		// SOURCE.md: integer class codes 1..K as stored.
		var codes []string
		for c := 1; c <= k; c++ {
			codes = append(codes, strconv.Itoa(c))
		}
		checkStrings(t, fmt.Sprintf("Categories[%d]", j), ds.Categories[j], codes)
		total := 0
		for _, c := range det.Stat(j).Classes {
			if c.Count == 0 {
				t.Errorf("class %q of %q: got no rows, want some", c.Value, ds.Labels.At(j))
			}
			total += c.Count
		}
		if total != s.Rows {
			t.Errorf("class counts of %q: got a total of %d, want %d", ds.Labels.At(j), total, s.Rows)
		}
	}
}

// checkSameData checks that a and b hold exactly the same features, in the
// same order, and the same labels, matched by name (a's labels may be in
// another order than b's).
func checkSameData(t *testing.T, a, b *dataset.Dataset) {
	t.Helper()
	checkStrings(t, "Features", a.Features.Strings(), b.Features.Strings())
	if a.Kind != b.Kind {
		t.Errorf("Kind: got %q and %q, want the same", a.Kind, b.Kind)
	}
	ax, bx := a.Dense(), b.Dense()
	if ar, ac := ax.Dims(); !sameBits(ax, bx) {
		br, bc := bx.Dims()
		if ar != br || ac != bc {
			t.Fatalf("X: got %d×%d and %d×%d, want the same shape", ar, ac, br, bc)
		}
	cells:
		for i := range ar {
			for j := range ac {
				if va, vb := ax.At(i, j), bx.At(i, j); math.Float64bits(va) != math.Float64bits(vb) {
					t.Errorf("X[%d][%d] (%s): got %v and %v, want the same", i, j, a.Features.At(j), va, vb)
					break cells
				}
			}
		}
	}
	if a.Labels.Len() != b.Labels.Len() || a.Rows() != b.Rows() {
		t.Fatalf("got %d×%d and %d×%d labels, want the same shape", a.Rows(), a.Labels.Len(), b.Rows(), b.Labels.Len())
	}
	for ja, name := range a.Labels.Strings() {
		jb := b.Labels.Index(name)
		if jb < 0 {
			t.Errorf("label %q: missing from the second data set (%q)", name, b.Labels)
			continue
		}
		for i := range a.Rows() {
			if va, vb := a.Y.At(i, ja), b.Y.At(i, jb); va != vb {
				t.Errorf("label %q row %d: got %v and %v, want the same", name, i, va, vb)
				break
			}
		}
	}
}

// TestRealGenbase checks the genbase quirks: a protein identifier column and
// YES/NO features (declared {YES, NO} in the ARFF, written as found in the
// CSV).
func TestRealGenbase(t *testing.T) {
	skipWithoutDatasets(t)
	dir := filepath.Join(datasetsDir, "genbase")
	xml := labelXML(t, dir)
	yes := genbaseYes(t, filepath.Join(dir, "genbase.csv"))
	tests := []struct {
		file    string
		line    int    // where the default options refuse protein
		msg     string // what they say
		withXML bool
	}{
		{"genbase.csv", 2, `"O00060" is not a number`, false},
		{"genbase.arff", 3, "a nominal attribute with text values {O00060, O00139, O02741, O08424, …} cannot be a feature", true},
	}
	for _, tc := range tests {
		path := filepath.Join(dir, tc.file)
		var opts dataset.Options
		if tc.withXML {
			opts.LabelXML = xml
		}
		t.Run(tc.file+"/defaults", func(t *testing.T) {
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			_, err = dataset.Load(f, opts)
			checkInputError(t, err, inputErr{Line: tc.line, Column: "protein", Msg: tc.msg})
			if err != nil && !strings.Contains(err.Error(), "drop=protein") {
				t.Errorf("got %q, want it to suggest drop=protein", err)
			}
		})
		t.Run(tc.file+"/drop protein, one-hot", func(t *testing.T) {
			opts := opts
			opts.Drop, opts.Nominal = genbaseOptions.Drop, genbaseOptions.Nominal
			ds := loadFile(t, path, opts)
			if ds.Rows() != 662 || ds.Features.Len() != 1185 || ds.Labels.Len() != 27 {
				t.Fatalf("shape: got %d×%d with %d labels, want 662×1185 with 27", ds.Rows(), ds.Features.Len(), ds.Labels.Len())
			}
			if ds.Features.Index("protein") >= 0 {
				t.Errorf("Features: got protein among them, want it dropped")
			}
			// The encoded features are 0.2 % non-zero: held sparse, as
			// all-numeric data that sparse are.
			if !ds.IsSparse() {
				t.Errorf("storage: got dense, want sparse")
			}
			x := ds.Dense()
			// Each YES/NO column became one 0/1 column of the same name,
			// 1 exactly where the CSV says YES.
			for j, name := range ds.Features.Strings() {
				col, ok := yes[name]
				if !ok {
					t.Fatalf("feature %q: not a YES/NO column of the CSV", name)
				}
				for i := range ds.Rows() {
					want := 0.0
					if col[i] {
						want = 1
					}
					if got := x.At(i, j); got != want {
						t.Fatalf("%s row %d: got %v, want %v", name, i, got, want)
					}
				}
			}
		})
	}
}

// genbaseYes reads genbase.csv with encoding/csv, independently of the
// loader, and returns for each YES/NO column where it says YES.
func genbaseYes(t *testing.T, path string) map[string][]bool {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]bool{}
	for j, name := range recs[0] {
		if name == "protein" || strings.HasPrefix(name, dataset.DefaultLabelPrefix) {
			continue
		}
		col := make([]bool, len(recs)-1)
		for i, rec := range recs[1:] {
			switch rec[j] {
			case "YES":
				col[i] = true
			case "NO":
			default:
				t.Fatalf("%s line %d, column %q: got %q, want YES or NO", path, i+2, name, rec[j])
			}
		}
		out[name] = col
	}
	return out
}

// TestRealMEKAHint documents a trap in medical.arff: its @relation still
// says "-C 45" from before Weka filters moved the labels to the end, so
// without the XML the first 45 word features are taken as labels, with only
// a warning.
func TestRealMEKAHint(t *testing.T) {
	skipWithoutDatasets(t)
	ds := loadFile(t, filepath.Join(datasetsDir, "medical", "medical.arff"), dataset.Options{})
	if ds.Labels.Len() != 45 || ds.Labels.At(0) != "-" {
		t.Errorf("Labels: got %d starting %q, want the 45 first attributes starting \"-\"", ds.Labels.Len(), ds.Labels.Head(1))
	}
	checkWarning(t, ds, `MEKA's "-C 45"`)
}
