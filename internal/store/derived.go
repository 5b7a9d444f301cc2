package store

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"path/filepath"
)

// DeriveJobResult makes sure that the committed result directory of job
// id holds the file rel (its path in it, with slashes), a file derived
// from the others (projected.csv from projected.bin), written on first
// use rather than by the job.
//
// When ChecksumsFile lists rel, the file is checked as VerifyJobResult
// does, and its errors are VerifyJobResult's (a *CorruptResultError when
// it does not match). When it does not, derive writes the file: to a
// temporary file under tmp/, hashed as it is written and synced, renamed
// into place (replacing a file a crash left unlisted) and its directory
// synced; then a new ChecksumsFile listing it besides the others is
// written the same way and renamed over the old one. A crash at any
// moment leaves either no file, an unlisted one (derived again at the next
// call) or the file listed with its checksum; tmp/ is emptied by Open.
// Results without ChecksumsFile (committed before checksums existed) get
// the file unlisted.
//
// Calls are serialised with each other and with commits and removals of
// results, so that two requests derive a file once and a job's results
// are not removed half way. On error nothing new is left in place. A job
// without a result directory is ErrNotFound.
func (s *Store) DeriveJobResult(id, rel string, derive func(io.Writer) error) error {
	if !ValidID(id) {
		return fmt.Errorf("job %q: %w", id, ErrNotFound)
	}
	s.results.Lock()
	defer s.results.Unlock()
	dir := s.JobDir(id)
	if _, err := s.fs.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("job %s has no results: %w", id, ErrNotFound)
	}
	sums, ok, err := s.readChecksums(id, dir)
	if err != nil {
		return err
	}
	final := filepath.Join(dir, filepath.FromSlash(rel))
	if _, listed := sums.Files[rel]; listed {
		return s.VerifyJobResult(id, rel)
	}
	if !ok {
		if _, err := s.fs.Stat(final); err == nil {
			return nil // unchecked, as every file of such results
		}
	}
	fail := func(what string, err error) error {
		return fmt.Errorf("writing the result file %s of job %s: %s: %w", rel, id, what, err)
	}
	sum, _, err := s.writeInPlace(final, derive)
	if err != nil {
		s.fs.Remove(final) // unlisted: it would be derived again, but leave nothing
		return fail("deriving it", err)
	}
	if ok {
		listed := sums
		listed.Files = maps.Clone(sums.Files)
		listed.Files[rel] = sum
		sumsPath := filepath.Join(dir, ChecksumsFile)
		if _, renamed, err := s.writeInPlace(sumsPath, encodeChecksums(listed)); err != nil {
			// Not durable: put the old checksums back (a half-durable
			// listing is consistent too, but the caller is told it
			// failed), then the file is unlisted and goes.
			if !renamed || s.restoreChecksums(sumsPath, sums) {
				s.fs.Remove(final)
			}
			return fail("listing its checksum", err)
		}
	}
	if st, err := s.fs.Stat(final); err == nil {
		s.verified.add(final, st, sum.SHA256)
	}
	return nil
}

// writeInPlace writes a file with write to a temporary file under tmp/,
// hashing it, syncs it, renames it to path and syncs path's directory. On
// an error before the rename the temporary file is removed and path is as
// it was; renamed says whether the rename was made (then only the sync of
// the directory failed).
func (s *Store) writeInPlace(path string, write func(io.Writer) error) (sum FileSum, renamed bool, err error) {
	f, err := s.fs.CreateTemp(s.StagingDir(), "derived-*")
	if err != nil {
		return sum, false, fmt.Errorf("creating a temporary file: %w", err)
	}
	defer func() {
		if err != nil && !renamed {
			s.fs.Remove(f.Name())
		}
	}()
	closed := false
	defer func() {
		if !closed {
			f.Close()
		}
	}()
	h := sha256.New()
	cw := &countWriter{w: io.MultiWriter(f, h)}
	bw := bufio.NewWriterSize(cw, 64<<10)
	if err := write(bw); err != nil {
		return sum, renamed, err
	}
	if err := bw.Flush(); err != nil {
		return sum, renamed, err
	}
	if err := f.Sync(); err != nil {
		return sum, renamed, fmt.Errorf("syncing it: %w", err)
	}
	closed = true
	if err := f.Close(); err != nil {
		return sum, renamed, fmt.Errorf("closing it: %w", err)
	}
	if err := s.fs.Rename(f.Name(), path); err != nil {
		return sum, renamed, fmt.Errorf("moving it into place: %w", err)
	}
	renamed = true
	if err := syncDir(s.fs, filepath.Dir(path)); err != nil {
		return sum, renamed, err
	}
	return FileSum{Size: cw.n, SHA256: hex.EncodeToString(h.Sum(nil))}, true, nil
}

// encodeChecksums writes sums as ChecksumsFile is written.
func encodeChecksums(sums Checksums) func(io.Writer) error {
	return func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(sums)
	}
}

// restoreChecksums writes sums back to path, and says whether it did.
func (s *Store) restoreChecksums(path string, sums Checksums) bool {
	_, _, err := s.writeInPlace(path, encodeChecksums(sums))
	return err == nil
}
