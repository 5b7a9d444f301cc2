package store_test

import (
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"mldr/internal/store"
)

// logFS is the real file system, logging the syncs and renames made
// through it (paths relative to the data directory, with slashes).
type logFS struct {
	store.OSFS
	dir string
	mu  sync.Mutex
	ops []string // "sync tmp/…/pca/a.bin", "rename tmp/… jobs/…"
}

func (l *logFS) log(op string, paths ...string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, p := range paths {
		rel, err := filepath.Rel(l.dir, p)
		if err != nil {
			rel = p
		}
		op += " " + filepath.ToSlash(rel)
	}
	l.ops = append(l.ops, op)
}

func (l *logFS) taken() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	ops := l.ops
	l.ops = nil
	return ops
}

func (l *logFS) OpenFile(name string, flag int, perm fs.FileMode) (store.File, error) {
	f, err := l.OSFS.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return logFile{f, l}, nil
}

func (l *logFS) Open(name string) (store.File, error) {
	f, err := l.OSFS.Open(name)
	if err != nil {
		return nil, err
	}
	return logFile{f, l}, nil
}

func (l *logFS) CreateTemp(dir, pattern string) (store.File, error) {
	f, err := l.OSFS.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	return logFile{f, l}, nil
}

func (l *logFS) Rename(oldpath, newpath string) error {
	l.log("rename", oldpath, newpath)
	return l.OSFS.Rename(oldpath, newpath)
}

type logFile struct {
	store.File
	l *logFS
}

func (f logFile) Sync() error {
	f.l.log("sync", f.Name())
	return f.File.Sync()
}

// A job's result files are synced once, all at commit: none while it is
// written, then every file (checksums.json among them) and every
// directory of the staging tree before the one rename that moves it under
// jobs/, then jobs/ itself. So the rename commits files that are all
// durable, and the results are durable when the commit returns.
func TestCommitSyncsOnceBeforeRename(t *testing.T) {
	dir := t.TempDir()
	lfs := &logFS{dir: dir}
	s, err := store.Open(store.Config{Dir: dir, FS: lfs})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	lfs.taken()
	id := store.NewID()
	r, err := s.StageJobResults(id)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Discard()
	files := []string{"labels.bin", "pca/model.json", "pca/projected.bin", "mddmp/model.json", "mddmp/sub/x.json"}
	for _, rel := range files {
		if err := r.WriteFile(rel, func(w io.Writer) error { _, err := io.WriteString(w, strings.Repeat(rel, 1000)); return err }); err != nil {
			t.Fatal(err)
		}
	}
	if ops := lfs.taken(); len(ops) != 0 {
		t.Errorf("writing the files: got %q, want no sync or rename before the commit", ops)
	}
	if err := s.CommitJobResults(r); err != nil {
		t.Fatal(err)
	}
	ops := lfs.taken()
	renameAt := slices.IndexFunc(ops, func(op string) bool { return strings.HasPrefix(op, "rename ") })
	if renameAt < 0 || !strings.HasSuffix(ops[renameAt], " jobs/"+id) {
		t.Fatalf("got %q, want a rename of the staging directory to jobs/%s", ops, id)
	}
	staging := strings.Fields(ops[renameAt])[1]
	want := []string{"sync " + staging}
	for _, d := range []string{"pca", "mddmp", "mddmp/sub"} {
		want = append(want, "sync "+staging+"/"+d)
	}
	for _, rel := range append(files, store.ChecksumsFile) {
		want = append(want, "sync "+staging+"/"+rel)
	}
	got := slices.Sorted(slices.Values(ops[:renameAt]))
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("before the rename: got\n%q\nwant each file and directory synced once:\n%q", got, want)
	}
	if after := ops[renameAt+1:]; !slices.Equal(after, []string{"sync jobs"}) {
		t.Errorf("after the rename: got %q, want [\"sync jobs\"]", after)
	}
	for _, rel := range files {
		if err := s.VerifyJobResult(id, rel); err != nil {
			t.Errorf("%s: %v", rel, err)
		}
	}
}
