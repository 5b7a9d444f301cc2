package store

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
)

// ChecksumsFile is the manifest of a job's result directory: the size and
// SHA-256 of every other file in it, written last by CommitJobResults.
const ChecksumsFile = "checksums.json"

// Checksums is the content of ChecksumsFile.
type Checksums struct {
	// Algorithm is "sha256".
	Algorithm string `json:"algorithm"`
	// Files maps a file's path in the result directory, with slashes
	// ("pca/projected.csv"), to its size and hash.
	Files map[string]FileSum `json:"files"`
}

// FileSum is a file's size in bytes and its SHA-256 in hexadecimal.
type FileSum struct {
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// VerifyJobResult checks the committed result file rel of job id (its path
// in the result directory, with slashes) against ChecksumsFile before it is
// read or served.
//
// It returns a *CorruptResultError (wrapping ErrCorruptResult) when the
// file is listed but missing, of another size or another SHA-256, when it
// is present but not listed, or when ChecksumsFile cannot be decoded. It
// returns nil when the file is neither listed nor present: the caller
// meets its absence (mds writes no projection). Results committed before
// checksums were written have no ChecksumsFile: their files are unverified
// and VerifyJobResult returns nil.
//
// A file whose hash matched is remembered by path, size and modification
// time, and is not hashed again while these stay the same, so large files
// (projected.csv of a big data set) are read once, not at every request.
// Corruption that keeps size and time (a bit flipped on the medium) is
// therefore found at the first read after a restart, not at later ones.
func (s *Store) VerifyJobResult(id, rel string) error {
	if !ValidID(id) {
		return fmt.Errorf("job %q: %w", id, ErrNotFound)
	}
	dir := s.JobDir(id)
	sums, ok, err := s.readChecksums(id, dir)
	if err != nil || !ok {
		return err
	}
	corrupt := func(reason string) error { return &CorruptResultError{Job: id, File: rel, Reason: reason} }
	p := filepath.Join(dir, filepath.FromSlash(rel))
	want, listed := sums.Files[rel]
	st, err := s.fs.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist) && !listed:
		return nil
	case errors.Is(err, fs.ErrNotExist):
		return corrupt("the file is missing")
	case err != nil:
		return fmt.Errorf("checking the result file %s of job %s: %w", rel, id, err)
	case !listed:
		return corrupt(ChecksumsFile + " does not list it")
	case st.Size() != want.Size:
		return corrupt(fmt.Sprintf("%d bytes, want %d", st.Size(), want.Size))
	}
	if s.verified.has(p, st, want.SHA256) {
		return nil
	}
	got, err := s.hashFile(p)
	if err != nil {
		return fmt.Errorf("checking the result file %s of job %s: %w", rel, id, err)
	}
	if got != want.SHA256 {
		return corrupt("its SHA-256 differs from the one written with it")
	}
	s.verified.add(p, st, got)
	return nil
}

// readChecksums reads a result directory's ChecksumsFile; ok is false when
// there is none.
func (s *Store) readChecksums(id, dir string) (sums Checksums, ok bool, err error) {
	f, err := s.fs.Open(filepath.Join(dir, ChecksumsFile))
	if errors.Is(err, fs.ErrNotExist) {
		return sums, false, nil
	}
	if err != nil {
		return sums, false, fmt.Errorf("reading the checksums of job %s: %w", id, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 16<<20))
	if err != nil {
		return sums, false, fmt.Errorf("reading the checksums of job %s: %w", id, err)
	}
	if err := json.Unmarshal(b, &sums); err != nil || sums.Algorithm != "sha256" || sums.Files == nil {
		return sums, false, &CorruptResultError{Job: id, File: ChecksumsFile, Reason: "it cannot be decoded"}
	}
	return sums, true, nil
}

func (s *Store) hashFile(p string) (string, error) {
	f, err := s.fs.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// maxVerified bounds the files remembered as verified; beyond, they are
// forgotten and hashed again when next read.
const maxVerified = 4096

// verifiedFiles remembers the result files whose hash matched, by path,
// with the size, modification time and hash they had.
type verifiedFiles struct {
	mu sync.Mutex
	m  map[string]verifiedFile
}

type verifiedFile struct {
	size   int64
	mtime  int64 // Unix nanoseconds
	sha256 string
}

func newVerifiedFiles() *verifiedFiles { return &verifiedFiles{m: map[string]verifiedFile{}} }

func (v *verifiedFiles) has(p string, st fs.FileInfo, sum string) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	e, ok := v.m[p]
	return ok && e.size == st.Size() && e.mtime == st.ModTime().UnixNano() && e.sha256 == sum
}

func (v *verifiedFiles) add(p string, st fs.FileInfo, sum string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if len(v.m) >= maxVerified {
		clear(v.m)
	}
	v.m[p] = verifiedFile{size: st.Size(), mtime: st.ModTime().UnixNano(), sha256: sum}
}

// forget drops every file under dir.
func (v *verifiedFiles) forget(dir string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	prefix := dir + string(filepath.Separator)
	for p := range v.m {
		if strings.HasPrefix(p, prefix) {
			delete(v.m, p)
		}
	}
}
