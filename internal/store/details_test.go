package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"mldr/internal/dataset"
)

// legacyOf is rec as a record made before details files existed held it:
// every column, label and label statistic in the record, and no details
// file.
func legacyOf(t *testing.T, s *Store, rec DatasetRecord) DatasetRecord {
	t.Helper()
	det, err := s.Details(rec)
	if err != nil {
		t.Fatal(err)
	}
	old := rec
	old.DetailsFile = ""
	old.Columns, old.LabelColumns = det.Columns, det.LabelColumns
	old.Summary = dataset.Summary{Rows: rec.Summary.Rows, Features: rec.Summary.Features, Kind: rec.Summary.Kind,
		Storage: rec.Summary.Storage, NonZeros: rec.Summary.NonZeros, Density: rec.Summary.Density,
		LabelCardinality: rec.Summary.LabelCardinality, LabelDensity: rec.Summary.LabelDensity,
		DistinctLabelsets: rec.Summary.DistinctLabelsets, Warnings: rec.Summary.Warnings, LegacyLabels: det.Labels.Strings()}
	for j := range det.LabelCount() {
		old.Summary.LegacyStats = append(old.Summary.LegacyStats, det.Stat(j))
	}
	return old
}

// TestUpgradeLegacyRecords: a data directory whose records were made
// before details files existed is opened; each record's lists move into
// a details file, the record keeps the same summary as a new upload's and
// shrinks, and the details and the pages' statistics are unchanged.
func TestUpgradeLegacyRecords(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	ml := importCSV(t, s, "ml", csvA)
	md, err := s.Import(context.Background(), Upload{Name: "md", FileName: "md.csv", Source: strings.NewReader(
		"a,label:c,label:d\n1,x,1\n2,y,1\n3,x,2\n4,z,2\n")})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]*dataset.Details{}
	for _, rec := range []DatasetRecord{ml, md} {
		det, err := s.Details(rec)
		if err != nil {
			t.Fatal(err)
		}
		want[rec.ID] = det
		old := legacyOf(t, s, rec)
		if err := s.meta.PutDataset(context.Background(), old); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(filepath.Join(dir, "datasets", rec.ID, rec.DetailsFile)); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	s = open(t, dir)
	defer s.Close()
	for _, rec := range []DatasetRecord{ml, md} {
		got, err := s.Dataset(rec.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.DetailsFile != rec.DetailsFile || got.Columns != nil || got.Summary.LegacyLabels != nil || got.Summary.LegacyStats != nil {
			t.Errorf("%s: got details file %q, columns %q, legacy lists %v %v; want %q and none", rec.Name, got.DetailsFile, got.Columns,
				got.Summary.LegacyLabels, got.Summary.LegacyStats, rec.DetailsFile)
		}
		g, w := got.Summary, rec.Summary
		if g.LabelCount != w.LabelCount || g.LabelsDigest != w.LabelsDigest || g.ConstantLabels != w.ConstantLabels ||
			g.Classes != w.Classes || g.MaxClasses != w.MaxClasses || g.LabelOnes != w.LabelOnes {
			t.Errorf("%s: upgraded summary %+v, want that of a new upload %+v", rec.Name, g, w)
		}
		det, err := s.Details(got)
		if err != nil {
			t.Fatalf("%s: Details: %v", rec.Name, err)
		}
		wd := want[rec.ID]
		if !det.Labels.Equal(wd.Labels) || !reflect.DeepEqual(det.Columns, wd.Columns) || !reflect.DeepEqual(det.LabelColumns, wd.LabelColumns) {
			t.Errorf("%s: details %v %q, want %v %q", rec.Name, det.Labels, det.Columns, wd.Labels, wd.Columns)
		}
		for j := range wd.LabelCount() {
			if a, b := det.Stat(j), wd.Stat(j); fmt.Sprint(a) != fmt.Sprint(b) {
				t.Errorf("%s: Stat(%d): got %+v, want %+v", rec.Name, j, a, b)
			}
		}
		b, _ := json.Marshal(got)
		if len(b) > 4096 {
			t.Errorf("%s: the upgraded record is %d bytes, want at most 4 KiB", rec.Name, len(b))
		}
	}
}

// TestDetailsFiles: the details file is written with the data, replaced
// by a relabel (the old one removed), removed with the data set, found
// corrupt when damaged, and reported missing by recovery.
func TestDetailsFiles(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	rec := importCSV(t, s, "a", csvA)
	path := func(r DatasetRecord) string { return filepath.Join(dir, "datasets", r.ID, r.DetailsFile) }
	if _, err := os.Stat(path(rec)); err != nil {
		t.Fatalf("the details file: %v", err)
	}
	next, err := s.Relabel(context.Background(), rec.ID, []string{"b", "label:y"}, dataset.MultiDim)
	if err != nil {
		t.Fatal(err)
	}
	if next.DetailsFile != "details-2.bin" {
		t.Errorf("after a relabel: details file %q, want details-2.bin", next.DetailsFile)
	}
	if _, err := os.Stat(path(rec)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the replaced details file: got %v, want it removed", err)
	}
	det, err := s.Details(next)
	if err != nil || strings.Join(det.Labels.Strings(), ",") != "b,y" || det.Kind != dataset.MultiDim {
		t.Errorf("after a relabel: details %v %s, %v; want labels b,y of a multi-dimensional data set", det.Labels, det.Kind, err)
	}
	// A damaged file is refused (and no longer served from memory once
	// it changed).
	b, err := os.ReadFile(path(next))
	if err != nil {
		t.Fatal(err)
	}
	b[20] ^= 0x01
	if err := os.WriteFile(path(next), b, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Details(next); !errors.Is(err, dataset.ErrCorrupt) {
		t.Errorf("a damaged details file: got %v, want ErrCorrupt", err)
	}
	// A missing one is a problem of the data set, after a restart.
	if err := os.Remove(path(next)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = open(t, dir)
	if p := s.Problem(rec.ID); p == "" {
		t.Error("a missing details file: got no problem, want one")
	}
	if _, err := s.Details(next); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("a missing details file: got %v, want an error saying it is missing", err)
	}
	if err := s.DeleteDataset(rec.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "datasets", rec.ID)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("after the delete: %v, want the directory gone", err)
	}
	s.Close()
}
