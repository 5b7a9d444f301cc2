package xcdata

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mldr/internal/dataset"
)

// scaledShape is the named shape at scale f.
func scaledShape(t *testing.T, name string, f float64) Shape {
	t.Helper()
	s, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	if s, err = s.Scaled(f); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestWriteStatistics writes every shape's training file at a small scale
// and checks its statistics, as Write counts them and as dataset.Load reads
// the file: the header, the rows, the mean labels and non-zero features a
// row against the repository's, the long tail of labels with 1–5 rows,
// positive features of unit L2 norm a row, and the labels held sparse when
// their dense form would be large.
func TestWriteStatistics(t *testing.T) {
	for _, tc := range []struct {
		name  string
		scale float64
		// minTail is the least share of the labels that rows use that 1–5
		// rows use.
		minTail float64
	}{
		{"bibtex", 0.2, 0.15},
		{"delicious", 0.1, 0.3},
		{"mediamill", 0.05, 0.1},
		{"eurlex-4k", 0.05, 0.3},
		{"wiki10-31k", 0.02, 0.3},
		{"amazoncat-13k", 0.002, 0.3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := scaledShape(t, tc.name, tc.scale)
			var b bytes.Buffer
			st, err := Write(&b, s, Train, 1)
			if err != nil {
				t.Fatal(err)
			}
			head, _, _ := strings.Cut(b.String(), "\n")
			if want := fmt.Sprintf("%d %d %d", s.Train, s.Features, s.Labels); head != want {
				t.Errorf("header: got %q, want %q", head, want)
			}
			if st.Rows != s.Train {
				t.Errorf("rows: got %d, want %d", st.Rows, s.Train)
			}
			lpr := float64(st.LabelOnes) / float64(st.Rows)
			if math.Abs(lpr-s.LabelsPerRow) > 0.1*s.LabelsPerRow {
				t.Errorf("labels a row: got %.2f, want %.1f within 10 %%", lpr, s.LabelsPerRow)
			}
			fpr := float64(st.NonZeros) / float64(st.Rows)
			if s.Dense && fpr != float64(s.Features) || math.Abs(fpr-s.FeaturesPerRow) > 0.1*s.FeaturesPerRow {
				t.Errorf("non-zero features a row: got %.1f, want %g within 10 %% (all %d if dense: %v)", fpr, s.FeaturesPerRow, s.Features, s.Dense)
			}
			used := 0
			for _, c := range st.LabelRows {
				if c > 0 {
					used++
				}
			}
			if tail := st.LongTail(); float64(tail) < tc.minTail*float64(used) {
				t.Errorf("long tail: %d of the %d labels used have 1–5 rows, want at least %.0f %%", tail, used, 100*tc.minTail)
			}
			t.Logf("%s: α = %.2f, %.2f labels and %.1f features a row, %d of %d labels used, %d with 1–5 rows, %.1f MB",
				s, newModel(s, 1).labelExponent, lpr, fpr, used, s.Labels, st.LongTail(), float64(b.Len())/1e6)

			d, err := dataset.Load(bytes.NewReader(b.Bytes()), dataset.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if d.Rows() != s.Train || d.Features.Len() != s.Features || d.Labels.Len() != s.Labels || d.Kind != dataset.MultiLabel {
				t.Fatalf("loaded: got %d×%d, %d labels, %s; want %d×%d, %d labels, multi-label",
					d.Rows(), d.Features.Len(), d.Labels.Len(), d.Kind, s.Train, s.Features, s.Labels)
			}
			if got := d.LabelOnes(); got != st.LabelOnes {
				t.Errorf("loaded label ones: got %d, want %d", got, st.LabelOnes)
			}
			wantYSparse := 8*s.Train*s.Labels >= dataset.MinSparseLabelBytes
			if (d.YSparse != nil) != wantYSparse {
				t.Errorf("labels held sparse: got %v, want %v (dense Y of %d bytes)", d.YSparse != nil, wantYSparse, 8*s.Train*s.Labels)
			}
			x := d.Dense()
			nnz := int64(0)
			for i := range s.Train {
				norm := 0.0
				for _, v := range x.RawRowView(i) {
					if v < 0 {
						t.Fatalf("row %d: a negative feature %g", i, v)
					}
					if v > 0 {
						nnz++
					}
					norm += v * v
				}
				if math.Abs(math.Sqrt(norm)-1) > 1e-5 {
					t.Fatalf("row %d: L2 norm %g, want 1", i, math.Sqrt(norm))
				}
			}
			if nnz != st.NonZeros {
				t.Errorf("loaded non-zero features: got %d, want %d", nnz, st.NonZeros)
			}
		})
	}
}

// TestWriteDeterministic checks that a seed gives the same bytes, and that
// another seed and the test part give other rows with the same header
// counts.
func TestWriteDeterministic(t *testing.T) {
	s := scaledShape(t, "eurlex-4k", 0.01)
	write := func(part Part, seed uint64) string {
		var b bytes.Buffer
		if _, err := Write(&b, s, part, seed); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	a, again := write(Train, 1), write(Train, 1)
	if a != again {
		t.Error("seed 1 twice: got different files, want the same")
	}
	if write(Train, 2) == a {
		t.Error("seed 2: got seed 1's file, want another")
	}
	test := write(Test, 1)
	if head, _, _ := strings.Cut(test, "\n"); head != fmt.Sprintf("%d 5000 3993", s.Test) {
		t.Errorf("test header: got %q, want %d 5000 3993", head, s.Test)
	}
	if strings.Contains(a, strings.SplitN(test, "\n", 3)[1]) {
		t.Error("the test file's first row is a training row, want other rows")
	}
}

// TestLabelsFollowFeatures checks that a label's rows hold its topic
// columns far more often than the other rows: the features reveal the
// labels.
func TestLabelsFollowFeatures(t *testing.T) {
	s := scaledShape(t, "eurlex-4k", 0.05)
	var b bytes.Buffer
	if _, err := Write(&b, s, Train, 1); err != nil {
		t.Fatal(err)
	}
	d, err := dataset.Load(&b, dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := newModel(s, 1)
	for j := range 10 {
		topic := map[int32]bool{}
		for _, c := range m.topics[j*topicColumns : (j+1)*topicColumns] {
			topic[c] = true
		}
		var with, without [2]float64 // rows, rows holding a topic column
		for i := range d.Rows() {
			has := false
			for _, l := range d.LabelsOf(i, nil) {
				has = has || int(l) == j
			}
			ind, _ := d.Sparse.Row(i)
			holds := 0.0
			for _, c := range ind {
				if topic[c] {
					holds = 1
					break
				}
			}
			if has {
				with[0], with[1] = with[0]+1, with[1]+holds
			} else {
				without[0], without[1] = without[0]+1, without[1]+holds
			}
		}
		pw, po := with[1]/with[0], without[1]/without[0]
		if with[0] == 0 || pw < 3*po || pw < 0.5 {
			t.Errorf("label %d: %.0f rows hold a topic column at a rate of %.2f, the other rows %.2f; want at least 0.5 and 3 times", j, with[0], pw, po)
		}
	}
}

func TestLookupAndScaled(t *testing.T) {
	s, err := Lookup("AmazonCat-13K")
	if err != nil || s.String() != "1186239 + 306782 × 203882 × 13330" {
		t.Errorf("got %v, %v; want AmazonCat-13K's shape", s, err)
	}
	if _, err := Lookup("rcv1"); err == nil || !strings.Contains(err.Error(), "eurlex-4k") {
		t.Errorf("an unknown name: got %v, want an error listing the names", err)
	}
	sc, err := s.Scaled(0.05)
	if err != nil || sc.Train != 59312 || sc.Test != 15339 || sc.Features != s.Features || sc.Labels != s.Labels {
		t.Errorf("scale 0.05: got %v, %v; want 59312 + 15339 rows, the same columns", sc, err)
	}
	for _, f := range []float64{0, -1, 1.5, math.NaN()} {
		if _, err := s.Scaled(f); err == nil {
			t.Errorf("scale %v: got no error, want one", f)
		}
	}
}

func TestWriteFile(t *testing.T) {
	s := scaledShape(t, "bibtex", 0.01)
	path := filepath.Join(t.TempDir(), "bibtex.txt")
	st, err := WriteFile(path, s, Test, 1)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lines := 0
	for sc := bufio.NewScanner(f); sc.Scan(); {
		lines++
	}
	if fi, err := f.Stat(); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("mode: got %v, %v; want 0644", fi.Mode(), err)
	}
	if st.Rows != s.Test || lines != s.Test+1 {
		t.Errorf("got %d rows, %d lines; want %d rows and a header", st.Rows, lines, s.Test)
	}
	if left, _ := filepath.Glob(path + ".tmp-*"); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
	if _, err := WriteFile(filepath.Join(t.TempDir(), "no", "such", "dir"), s, Train, 1); err == nil {
		t.Error("a missing directory: got no error, want one")
	}
}
