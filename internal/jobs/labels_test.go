package jobs

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/dataset"
)

func TestReadRunLabels(t *testing.T) {
	header := `{"version":1,"kind":"multidim","labels":["a","b"],"categories":[["x","y"],["p","q","r"]],"gen":3,"train_rows":2,"test_rows":1,"width":2}` + "\n"
	body := []byte{1, 0, 2, 0, 0, 0, 1, 0, 1, 0, 0, 1} // (1,2) (0,1) | (1,256)
	// The same header without categories, so that 256 is a class index.
	header = `{"version":1,"kind":"multidim","labels":["a","b"],"gen":3,"train_rows":2,"test_rows":1,"width":2}` + "\n"
	l, err := ReadRunLabels(bytes.NewReader(append([]byte(header), body...)))
	if err != nil {
		t.Fatal(err)
	}
	if l.Gen != 3 || l.TrainRows != 2 || l.TestRows != 1 || !slices.Equal(l.Labels, []string{"a", "b"}) {
		t.Errorf("got %+v", l)
	}
	for _, c := range []struct {
		test bool
		i    int
		want []int32
	}{{false, 0, []int32{1, 2}}, {false, 1, []int32{0, 1}}, {true, 0, []int32{1, 256}}, {false, 2, nil}, {true, 1, nil}, {false, -1, nil}} {
		if got := l.Classes(c.test, c.i); !slices.Equal(got, c.want) {
			t.Errorf("Classes(%v, %d): got %v, want %v", c.test, c.i, got, c.want)
		}
	}
	withCats := `{"version":1,"kind":"multidim","labels":["a","b"],"categories":[["x","y"],["p","q","r"]],"train_rows":2,"test_rows":1,"width":2}` + "\n"
	ml1 := `{"version":1,"kind":"multilabel","labels":["a","b","c"],"train_rows":2,"width":1}` + "\n"
	ml2 := `{"version":2,"kind":"multilabel","labels":["a","b","c"],"train_rows":2,"ones":3}` + "\n"
	for name, b := range map[string][]byte{
		"short":                   append([]byte(header), body[:11]...),
		"long":                    append(append([]byte(header), body...), 0),
		"class out of range":      append([]byte(withCats), body...),
		"bad width":               []byte(`{"version":1,"labels":["a"],"train_rows":1,"width":3}` + "\n\x01\x00\x00"),
		"bad version":             []byte(`{"version":3,"labels":["a"],"train_rows":1,"width":1}` + "\n\x01"),
		"version 2 with width":    []byte(`{"version":2,"kind":"multilabel","labels":["a"],"train_rows":1,"width":1,"ones":1}` + "\n\x01\x00"),
		"version 2 multidim":      []byte(`{"version":2,"kind":"multidim","labels":["a"],"train_rows":1,"ones":1}` + "\n\x01\x00"),
		"no header":               []byte(`{"version":1`),
		"v1 label value 2":        []byte(ml1 + "\x01\x00\x02\x00\x00\x00"),
		"v2 index past q":         []byte(ml2 + "\x02\x00\x03\x01\x00"),
		"v2 repeated index":       []byte(ml2 + "\x02\x00\x00\x01\x01"),
		"v2 more ones than said":  []byte(ml2 + "\x02\x00\x01\x02\x00\x01"),
		"v2 fewer ones than said": []byte(ml2 + "\x01\x00\x01\x02"),
		"v2 count past q":         []byte(ml2 + "\x04\x00\x01\x01\x01\x00"),
		"v2 truncated":            []byte(ml2 + "\x02\x00"),
		"v2 trailing byte":        []byte(ml2 + "\x02\x00\x02\x01\x01\x00"),
	} {
		if _, err := ReadRunLabels(bytes.NewReader(b)); err == nil {
			t.Errorf("%s: got no error", name)
		}
	}
	// Version 1 multi-label files (results written before version 2)
	// still read: the same rows as version 2 gives.
	for name, b := range map[string][]byte{
		"version 1": []byte(ml1 + "\x01\x00\x01\x00\x01\x00"),
		"version 2": []byte(ml2 + "\x02\x00\x02\x01\x01"),
	} {
		l, err := ReadRunLabels(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for i, want := range [][]int32{{0, 2}, {1}} {
			if got := l.Ones(false, i); !slices.Equal(got, want) {
				t.Errorf("%s: Ones(false, %d): got %v, want %v", name, i, got, want)
			}
		}
	}
}

// TestRunLabelsRoundTrip: what encodeRunLabels writes, ReadRunLabels reads
// back as RunLabelsOf holds it, for both kinds, with and without a test
// data set, including rows without labels and the last label.
func TestRunLabelsRoundTrip(t *testing.T) {
	ml := func(n, q int, v ...float64) *dataset.Dataset {
		names := []string{"a", "b", "c", "d"}[:q]
		return &dataset.Dataset{Kind: dataset.MultiLabel, Labels: dataset.ListNames(names), Y: mat.NewDense(n, q, v)}
	}
	md := func(n int, v ...float64) *dataset.Dataset {
		return &dataset.Dataset{Kind: dataset.MultiDim, Labels: dataset.ListNames([]string{"u", "v"}), Categories: [][]string{{"x", "y"}, {"p", "q", "r"}},
			Y: mat.NewDense(n, 2, v)}
	}
	for _, tc := range []struct {
		name        string
		train, test *dataset.Dataset
		version     int
	}{
		{"multi-label", ml(3, 4, 1, 0, 0, 1, 0, 0, 0, 0, 1, 1, 1, 1), nil, 2},
		{"multi-label with a test set", ml(2, 3, 0, 1, 0, 1, 0, 1), ml(1, 3, 0, 0, 1), 2},
		{"multi-dimensional", md(2, 1, 2, 0, 0), md(1, 1, 1), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := encodeRunLabels(&buf, tc.train, tc.test, 7); err != nil {
				t.Fatal(err)
			}
			got, err := ReadRunLabels(bytes.NewReader(buf.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			if v := bytes.Index(buf.Bytes(), []byte(`"version":`)); v < 0 || int(buf.Bytes()[v+10]-'0') != tc.version {
				t.Errorf("got header %q, want version %d", buf.Bytes()[:bytes.IndexByte(buf.Bytes(), '\n')], tc.version)
			}
			want := RunLabelsOf(tc.train, tc.test)
			if got.Gen != 7 || got.TrainRows != want.TrainRows || got.TestRows != want.TestRows || got.Kind != want.Kind {
				t.Errorf("got gen %d, %d+%d rows of %s, want 7, %d+%d of %s", got.Gen, got.TrainRows, got.TestRows, got.Kind,
					want.TrainRows, want.TestRows, want.Kind)
			}
			if !slices.Equal(got.codes, want.codes) || !slices.Equal(got.start, want.start) {
				t.Errorf("got codes %v at %v, want %v at %v", got.codes, got.start, want.codes, want.start)
			}
		})
	}
}

// largeLabels is N rows of q labels, about per of them a row (seeded).
func largeLabels(n, q, per int) *dataset.Dataset {
	rng := rand.New(rand.NewPCG(1, 1))
	y := mat.NewDense(n, q, nil)
	for i := range n {
		for range 1 + rng.IntN(2*per) {
			y.Set(i, int(float64(q)*rng.Float64()*rng.Float64()), 1)
		}
	}
	names := make([]string, q)
	for j := range names {
		names[j] = "l" + string(rune('a'+j%26))
	}
	return &dataset.Dataset{Kind: dataset.MultiLabel, Labels: dataset.ListNames(names), Y: y}
}

// allocated is the bytes f allocates.
func allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// TestRunLabelsLargeQ: with q = 4 000 labels and about 10 a row, the
// labels file, what reading it allocates and what RunLabels holds grow with
// the labels present (a few bytes each), not with N·q (8 bytes a value
// held as float64 would be 640 MB here, and a byte a value 80 MB of file).
func TestRunLabelsLargeQ(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 20 000 × 4 000 label matrix")
	}
	const n, q = 20_000, 4_000
	ds := largeLabels(n, q, 10)
	ones := 0
	for _, v := range ds.Y.RawMatrix().Data {
		if v != 0 {
			ones++
		}
	}
	var buf bytes.Buffer
	if err := encodeRunLabels(&buf, ds, nil, 1); err != nil {
		t.Fatal(err)
	}
	header := bytes.IndexByte(buf.Bytes(), '\n') + 1
	// A count and up to ones gaps of at most 2 bytes each (q < 2^14).
	if body, most := buf.Len()-header, binary.MaxVarintLen16*(ones+n); body > most {
		t.Errorf("got a labels file of %d bytes after its header for %d ones in %d rows, want at most %d", body, ones, n, most)
	}
	var l *RunLabels
	got := allocated(func() {
		var err error
		if l, err = ReadRunLabels(bytes.NewReader(buf.Bytes())); err != nil {
			t.Fatal(err)
		}
	})
	// codes (4 bytes a one), start (8 bytes a row, grown by append: up to
	// about twice), the reader's 64 KiB buffer and the header.
	most := uint64(4*ones+3*8*n) + 1<<20
	if got > most {
		t.Errorf("ReadRunLabels allocated %d bytes for %d ones in %d rows of %d labels, want at most %d", got, ones, n, q, most)
	}
	if held := l.Bytes(); held > int64(4*ones+2*8*(n+1)) {
		t.Errorf("RunLabels holds %d bytes, want at most %d", held, 4*ones+2*8*(n+1))
	}
	if got := allocated(func() { l = RunLabelsOf(ds, nil) }); got > most {
		t.Errorf("RunLabelsOf allocated %d bytes, want at most %d", got, most)
	}
}

// BenchmarkRunLabels reads and builds the labels of a job at large q.
func BenchmarkRunLabels(b *testing.B) {
	const n, q = 20_000, 4_000
	ds := largeLabels(n, q, 10)
	var buf bytes.Buffer
	if err := encodeRunLabels(&buf, ds, nil, 1); err != nil {
		b.Fatal(err)
	}
	b.Run("read", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(buf.Len()))
		for b.Loop() {
			if _, err := ReadRunLabels(bytes.NewReader(buf.Bytes())); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("write", func(b *testing.B) {
		b.ReportAllocs()
		var out bytes.Buffer
		for b.Loop() {
			out.Reset()
			if err := encodeRunLabels(&out, ds, nil, 1); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("of", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			RunLabelsOf(ds, nil)
		}
	})
}
