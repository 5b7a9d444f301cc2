package store

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"mldr/internal/dataset"
)

// bigCSV is a dense CSV large enough for its rows to stream (thousands of
// rows, more than one batch), with labels named label:a and label:b.
func bigCSV(rows, cols int) string {
	rng := rand.New(rand.NewPCG(5, uint64(rows)))
	var b strings.Builder
	for c := range cols {
		fmt.Fprintf(&b, "x%d,", c)
	}
	b.WriteString("label:a,label:b\n")
	for r := range rows {
		for range cols {
			fmt.Fprintf(&b, "%.5g,", rng.NormFloat64())
		}
		fmt.Fprintf(&b, "%d,%d\n", r%2, rng.IntN(2))
	}
	return b.String()
}

// receivedEarly opens a store with cfg (closed when t ends) and receives
// file in it, read as it arrives with opts.
func receivedEarly(t *testing.T, cfg Config, file string, opts dataset.Options) (*Store, *Staged) {
	t.Helper()
	s, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	st, err := s.Stage()
	if err != nil {
		t.Fatal(err)
	}
	st.ReadAsReceived(opts, int64(len(file)))
	if err := st.ReceiveSource(context.Background(), "big.csv", strings.NewReader(file), 0); err != nil {
		t.Fatal(err)
	}
	return s, st
}

// streamedLayout reports whether the data file at path has the layout of
// a streamed one: X at a multiple of 4096 bytes, after a header padded to
// it (WriteBinary pads to 8 bytes only).
func streamedLayout(t *testing.T, path string) bool {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	hlen := binary.LittleEndian.Uint64(b[8:16])
	return (16+hlen)%4096 == 0 && strings.HasSuffix(string(b[16:16+hlen]), strings.Repeat(" ", 64))
}

// TestStreamedDataFile checks that an upload read as it arrives stores the
// data file its reading streamed when the reading is the one used (the
// stored data set then reads back as reading the file gives), and writes
// it after the reading otherwise: other options at the end, features that
// change after they were streamed (imputed), or data that take shards.
// Nothing of the stream is left beside the data set.
func TestStreamedDataFile(t *testing.T) {
	csv := bigCSV(3000, 40)
	lines := strings.Split(csv, "\n")
	for i := 5; i < len(lines)-1; i += 97 {
		_, rest, _ := strings.Cut(lines[i], ",")
		lines[i] = "?," + rest // the first cell missing
	}
	missing := strings.Join(lines, "\n")
	prefix := dataset.Options{LabelPrefix: "label:"}
	mean := dataset.Options{LabelPrefix: "label:", Missing: dataset.MissingMean}
	for _, tc := range []struct {
		name     string
		file     string
		readWith dataset.Options
		opts     dataset.Options
		shards   int64 // Config.ShardSize
		streamed bool
	}{
		{"options before the file", csv, prefix, prefix, 0, true},
		{"options changed after the file", csv, prefix, dataset.Options{LabelPrefix: "label:", Drop: []string{"x3"}}, 0, false},
		{"features imputed", missing, mean, mean, 0, false},
		{"data that take shards", csv, prefix, prefix, 256 << 10, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, st := receivedEarly(t, Config{Dir: t.TempDir(), ShardSize: tc.shards}, tc.file, tc.readWith)
			defer st.Discard()
			rec, err := s.CreateDataset(context.Background(), st, "", tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			dir := s.path("datasets", rec.ID)
			if len(rec.Shards) == 0 {
				if got := streamedLayout(t, filepath.Join(dir, rec.DataFile)); got != tc.streamed {
					t.Errorf("streamed data file: %v, want %v", got, tc.streamed)
				}
			} else if tc.streamed {
				t.Error("the data were stored in shards")
			}
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				if strings.HasPrefix(e.Name(), ".tmp") {
					t.Errorf("%s is left in the data set's directory", e.Name())
				}
			}
			got, err := s.LoadDataset(rec.ID)
			if err != nil {
				t.Fatal(err)
			}
			want, err := dataset.Load(strings.NewReader(tc.file), tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.X, want.X) || !reflect.DeepEqual(got.Y, want.Y) ||
				!reflect.DeepEqual(got.Features, want.Features) || !reflect.DeepEqual(got.Warnings, want.Warnings) {
				t.Error("the stored data set is not the file read with the upload's options")
			}
		})
	}
}

// An upload discarded after its file arrived (a refused form, a client
// gone) leaves nothing, its streamed file included.
func TestStreamedDataFileDiscarded(t *testing.T) {
	_, st := receivedEarly(t, Config{Dir: t.TempDir()}, bigCSV(3000, 40), dataset.Options{LabelPrefix: "label:"})
	staging := st.dir
	st.Discard()
	if _, err := os.Stat(staging); !os.IsNotExist(err) {
		t.Fatalf("the staging directory is still there: %v", err)
	}
}
