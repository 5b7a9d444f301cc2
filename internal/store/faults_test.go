package store_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"mldr/internal/dataset"
	"mldr/internal/store"
	"mldr/internal/store/faultfs"
)

// faultRows is the number of rows of faultCSV.
const faultRows = 1000

// faultCSV is about 80 KB, so that receiving it takes several writes, as
// does writing its binary form.
var faultCSV = func() string {
	var b strings.Builder
	b.WriteString("a,b,c,label:x,label:y\n")
	for i := range faultRows {
		fmt.Fprintf(&b, "%d.2500000000000001,%d.5000000000000002,%d.1250000000000003,%d,%d\n", i, i%17, i%5, i%2, i%3/2)
	}
	return b.String()
}()

// faultShardSize stores faultCSV in 4 row shards, the last one short.
const faultShardSize = 12 << 10

// faultFolds are two predefined folds of faultCSV's rows.
var faultFolds = func() string {
	var b strings.Builder
	b.WriteString("fold,split,row\n")
	for f := range 2 {
		for r := 1; r <= faultRows; r++ {
			part := "train"
			if r%2 == f {
				part = "test"
			}
			fmt.Fprintf(&b, "%d,%s,%d\n", f+1, part, r)
		}
	}
	return b.String()
}()

func openFaulty(t *testing.T) (*store.Store, *faultfs.FS, string) {
	t.Helper()
	return openFaultySharded(t, 0)
}

// openFaultySharded is openFaulty with shards of shardSize bytes (0: the
// default).
func openFaultySharded(t *testing.T, shardSize int64) (*store.Store, *faultfs.FS, string) {
	t.Helper()
	dir := t.TempDir()
	ffs := faultfs.New(nil)
	s, err := store.Open(store.Config{Dir: dir, FS: ffs, ShardSize: shardSize})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, ffs, dir
}

// dirState is every file and directory under the data directory but the
// metadata file, with the sizes of the files, and every record.
func dirState(t *testing.T, s *store.Store, dir string) string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == "meta.db" || rel == "." {
			return nil
		}
		if d.IsDir() {
			out = append(out, rel+"/")
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		out = append(out, fmt.Sprintf("%s %d", rel, info.Size()))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	recs, err := s.Datasets()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		out = append(out, fmt.Sprintf("record %s gen %d %s", r.ID, r.Gen, r.DataFile))
	}
	return strings.Join(out, "\n")
}

// faultOp is an operation that writes to the data directory. run does it
// (on the id setup returns, if any) and returns the id of what it made;
// check verifies what a successful run stored and undoes it, so that the
// next run starts from the same state.
type faultOp struct {
	name  string
	setup func(t *testing.T, s *store.Store) string
	run   func(s *store.Store, id string) (string, error)
	check func(t *testing.T, s *store.Store, id, made string)
	// without lists the kinds of operations it does not make.
	without []faultfs.Op
	// sharded is whether it stores a data set, and so is run again with
	// a shard size that stores faultCSV in 4 row shards.
	sharded bool
}

var resultFiles = map[string]string{
	"pca/projection.csv": "name,c1\na,0.5\n",
	"pca/projected.csv":  strings.Repeat("1,train,0.25\n", 20000),
	"metrics.json":       `{"rows": []}` + "\n",
}

var faultOps = []faultOp{
	{
		name: "import",
		run: func(s *store.Store, _ string) (string, error) {
			rec, err := s.Import(context.Background(), store.Upload{FileName: "f.csv", Source: strings.NewReader(faultCSV)})
			return rec.ID, err
		},
		check:   checkAndDelete,
		sharded: true,
	},
	{
		name: "stage, receive file and folds, create",
		run: func(s *store.Store, _ string) (string, error) {
			st, err := s.Stage()
			if err != nil {
				return "", err
			}
			defer st.Discard()
			if err := st.ReceiveSource(context.Background(), "f.csv", strings.NewReader(faultCSV), 0); err != nil {
				return "", err
			}
			if err := st.ReceiveFolds(context.Background(), strings.NewReader(faultFolds)); err != nil {
				return "", err
			}
			rec, err := s.CreateDataset(context.Background(), st, "", dataset.Options{})
			return rec.ID, err
		},
		check: checkAndDelete,
	},
	{
		name: "relabel",
		setup: func(t *testing.T, s *store.Store) string {
			rec, err := s.Import(context.Background(), store.Upload{FileName: "f.csv", Source: strings.NewReader(faultCSV)})
			if err != nil {
				t.Fatal(err)
			}
			return rec.ID
		},
		run: func(s *store.Store, id string) (string, error) {
			_, err := s.Relabel(context.Background(), id, []string{"label:x", "c"}, "")
			return id, err
		},
		check: func(t *testing.T, s *store.Store, id, _ string) {
			t.Helper()
			ds, err := s.LoadDataset(id)
			if err != nil || ds.Labels.Len() != 2 {
				t.Fatalf("after the relabel the data set does not load with 2 labels: %v", err)
			}
		},
		without: []faultfs.Op{faultfs.Mkdir},
		sharded: true,
	},
	{
		name: "job results",
		run: func(s *store.Store, _ string) (string, error) {
			id := store.NewID()
			r, err := s.StageJobResults(id)
			if err != nil {
				return "", err
			}
			defer r.Discard()
			for _, rel := range slices.Sorted(mapsKeys(resultFiles)) {
				if err := r.WriteFile(rel, func(w io.Writer) error { _, err := io.WriteString(w, resultFiles[rel]); return err }); err != nil {
					return "", err
				}
			}
			return id, s.CommitJobResults(r)
		},
		check: func(t *testing.T, s *store.Store, _, id string) {
			t.Helper()
			for rel, want := range resultFiles {
				if err := s.VerifyJobResult(id, rel); err != nil {
					t.Errorf("%s: %v", rel, err)
				}
				got, err := os.ReadFile(filepath.Join(s.JobDir(id), filepath.FromSlash(rel)))
				if err != nil || string(got) != want {
					t.Errorf("%s: got %d bytes (%v), want %d", rel, len(got), err, len(want))
				}
			}
			if err := s.RemoveJobResults(id); err != nil {
				t.Fatal(err)
			}
		},
	},
	{
		name: "derive a result file",
		setup: func(t *testing.T, s *store.Store) string {
			return commitFaultResults(t, s, store.NewID())
		},
		run: func(s *store.Store, id string) (string, error) {
			return id, s.DeriveJobResult(id, "pca/derived.csv", func(w io.Writer) error {
				_, err := io.WriteString(w, resultFiles["pca/projected.csv"])
				return err
			})
		},
		check: func(t *testing.T, s *store.Store, id, _ string) {
			t.Helper()
			if err := s.VerifyJobResult(id, "pca/derived.csv"); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(filepath.Join(s.JobDir(id), "pca", "derived.csv"))
			if err != nil || string(got) != resultFiles["pca/projected.csv"] {
				t.Fatalf("pca/derived.csv: got %d bytes (%v), want %d", len(got), err, len(resultFiles["pca/projected.csv"]))
			}
			commitFaultResults(t, s, id) // as it was: not derived yet
		},
		without: []faultfs.Op{faultfs.Mkdir},
	},
}

// commitFaultResults commits resultFiles as the results of job id.
func commitFaultResults(t *testing.T, s *store.Store, id string) string {
	t.Helper()
	r, err := s.StageJobResults(id)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Discard()
	for rel, b := range resultFiles {
		if err := r.WriteFile(rel, func(w io.Writer) error { _, err := io.WriteString(w, b); return err }); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.CommitJobResults(r); err != nil {
		t.Fatal(err)
	}
	return id
}

func mapsKeys(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func checkAndDelete(t *testing.T, s *store.Store, _, id string) {
	t.Helper()
	if _, err := s.LoadDataset(id); err != nil {
		t.Fatalf("the stored data set does not load: %v", err)
	}
	if err := s.DeleteDataset(id); err != nil {
		t.Fatal(err)
	}
}

// Every write, fsync, rename, create, close and mkdir of an upload, a
// relabel and a result commit fails once in turn, as a full disk or a
// failing device makes it: the operation fails with an error that says
// what was being done and wraps the cause, leaves the data directory as it
// was, and succeeds when tried again.
func TestFaultsLeaveNothing(t *testing.T) {
	kinds := []struct {
		op     faultfs.Op
		err    error
		strict bool // a fault that fires must fail the operation
	}{
		{faultfs.Write, syscall.ENOSPC, true},
		{faultfs.Sync, syscall.EIO, true},
		{faultfs.Rename, syscall.EIO, true},
		{faultfs.Create, syscall.ENOSPC, true},
		{faultfs.Mkdir, syscall.ENOSPC, true},
		// A failed close of a file only read loses nothing, and is ignored.
		{faultfs.Close, syscall.EIO, false},
	}
	type variant struct {
		faultOp
		shardSize int64
		name      string
	}
	var variants []variant
	for _, op := range faultOps {
		variants = append(variants, variant{op, 0, op.name})
		if op.sharded {
			// faultCSV stores 40 000 bytes of values: 4 shards, the last short.
			v := variant{op, faultShardSize, op.name + " in shards"}
			v.without = slices.DeleteFunc(slices.Clone(v.without), func(o faultfs.Op) bool { return o == faultfs.Mkdir }) // the shard directory
			check := op.check
			v.check = func(t *testing.T, s *store.Store, id, made string) {
				t.Helper()
				recs, err := s.Datasets()
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range recs {
					if len(r.Shards) != 4 || r.Shards[3].Rows >= r.Shards[0].Rows {
						t.Fatalf("data set %s is stored in shards %+v, want 4, the last short", r.ID, r.Shards)
					}
				}
				check(t, s, id, made)
			}
			variants = append(variants, v)
		}
	}
	for _, op := range variants {
		for _, k := range kinds {
			t.Run(fmt.Sprintf("%s/%s", op.name, k.op), func(t *testing.T) {
				s, ffs, dir := openFaultySharded(t, op.shardSize)
				var id string
				if op.setup != nil {
					id = op.setup(t, s)
				}
				failures := 0
				for n := 1; ; n++ {
					if n > 200 {
						t.Fatalf("still hitting the fault at n = %d", n)
					}
					before := dirState(t, s, dir)
					ffs.FailNth(k.op, n, k.err)
					out, err := op.run(s, id)
					fired := ffs.Fired() > 0
					ffs.Heal()
					if !fired {
						if err != nil {
							t.Fatalf("n = %d: no fault, got %v", n, err)
						}
						op.check(t, s, id, out)
						t.Logf("%d %s faults, each failed cleanly", failures, k.op)
						break
					}
					if err == nil {
						if k.strict {
							t.Fatalf("the %s fault at n = %d fired but the operation succeeded", k.op, n)
						}
						op.check(t, s, id, out)
						continue
					}
					failures++
					if !errors.Is(err, k.err) {
						t.Errorf("n = %d: got %v, want an error wrapping %v", n, err, k.err)
					}
					var pe *fs.PathError
					var le *os.LinkError
					switch {
					case errors.As(err, &pe) && err.Error() == pe.Error(),
						errors.As(err, &le) && err.Error() == le.Error():
						t.Errorf("n = %d: error %q does not say what was being done", n, err)
					}
					if after := dirState(t, s, dir); after != before {
						t.Errorf("n = %d: the failure changed the data directory\nbefore:\n%s\nafter:\n%s", n, before, after)
					}
					// The fault is gone: the operation succeeds.
					out, err = op.run(s, id)
					if err != nil {
						t.Fatalf("n = %d: after the fault, got %v", n, err)
					}
					op.check(t, s, id, out)
				}
				if k.strict && failures == 0 && !slices.Contains(op.without, k.op) {
					t.Errorf("no %s fault fired: the operation makes no %s", k.op, k.op)
				}
			})
		}
	}
}

// A full disk stays full: every write fails until space is freed; then
// the upload succeeds.
func TestDiskStaysFull(t *testing.T) {
	s, ffs, dir := openFaulty(t)
	before := dirState(t, s, dir)
	ffs.FailFrom(faultfs.Write, 1, syscall.ENOSPC)
	for i := range 3 {
		_, err := s.Import(context.Background(), store.Upload{FileName: "f.csv", Source: strings.NewReader(faultCSV)})
		if !errors.Is(err, syscall.ENOSPC) {
			t.Fatalf("upload %d on a full disk: got %v, want ENOSPC", i, err)
		}
	}
	if after := dirState(t, s, dir); after != before {
		t.Errorf("failed uploads changed the data directory:\n%s", after)
	}
	ffs.Heal()
	rec, err := s.Import(context.Background(), store.Upload{FileName: "f.csv", Source: strings.NewReader(faultCSV)})
	if err != nil {
		t.Fatalf("after space was freed: %v", err)
	}
	if _, err := s.LoadDataset(rec.ID); err != nil {
		t.Fatal(err)
	}
}
