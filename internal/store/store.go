// Package store keeps data sets (and, later, jobs and their results) under
// one data directory, so that nothing acknowledged is lost and nothing half
// written is ever seen.
//
// Layout of the data directory:
//
//	meta.db                  bbolt: one bucket per record kind, JSON values
//	                         (embedded mode; in shared mode the records are
//	                         in PostgreSQL and database-id names the database)
//	datasets/<id>/source     the file as uploaded
//	datasets/<id>/labels.xml the Mulan label file, if one came with it
//	datasets/<id>/data-<n>.bin  the parsed data set (dataset.WriteBinary)
//	datasets/<id>/data-<n>/     or its row shards, when it is larger than
//	                         Config.ShardSize (shards.go)
//	datasets/<id>/details-<n>.bin  its columns, label names and label
//	                         statistics (dataset.WriteDetails; details.go)
//	jobs/<id>/               a succeeded job's result files
//	jobs/<id>/checksums.json their sizes and SHA-256, checked before a read
//	tmp/                     staging for uploads and results in progress
//	                         (shared mode: tmp/<host>-<pid>-<random>/ per process)
//
// The metadata are behind an interface, Meta (Config.Meta): bbolt in the
// directory by default, PostgreSQL (package pgmeta) in the shared mode,
// where several processes use one data directory (see shared.go for its
// rules). Files are written first and made durable (fsync, rename, fsync
// of the directory), then the metadata is committed in one transaction; a
// delete removes the metadata first. So after a crash at any moment, Open
// finds at worst files without metadata, and removes them.
//
// Every file operation goes through an FS (Config.FS; the real one by
// default), so tests can make any write, fsync or rename fail as a full
// disk would. A failed upload, relabel or result commit leaves nothing
// behind: no record, and no file under datasets/, jobs/ or tmp/ that was
// not there before. Its error wraps the cause (errors.Is(err,
// syscall.ENOSPC) for a full disk).
//
// bbolt was chosen as the embedded store because it is pure Go (no cgo, so
// the two-command start and the static container image keep working), keeps
// everything in one file, and gives ACID transactions with fsync on commit;
// the product needs key–value records, not SQL.
package store

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"mldr/internal/membudget"
)

// Config configures Open.
type Config struct {
	// Dir is the data directory; it is created if missing.
	Dir string
	// Logger receives what recovery did; nil discards.
	Logger *slog.Logger
	// Now gives timestamps; nil means time.Now.
	Now func() time.Time
	// FS is the file system the data directory is on; nil means OSFS, the
	// real one. Tests pass one that fails chosen operations (package
	// faultfs). The metadata file is bbolt's and does not go through it.
	FS FS
	// Meta is the metadata store; nil means bbolt in Dir (meta.db), as
	// always. A shared one (PostgreSQL, package pgmeta) puts the store in
	// shared mode: see Open. The Store closes it (Open too, when it fails).
	Meta Meta
	// Host and PID name this process in shared mode (its staging
	// directory is tmp/<Host>-<PID>-<random>); "" and 0 mean the machine's
	// host name and this process's id. Tests that open two Stores in one
	// process give them different ones.
	Host string
	PID  int
	// ShardSize is the size above which a data set's stored form is
	// written in row shards of at most about this many bytes (shards.go);
	// 0 means DefaultShardSize, < 0 never.
	ShardSize int64
	// Memory is the budget of memory that the readings of uploads and
	// relabellings share: each claims what the loader estimates it will
	// hold (dataset.Options.WithMemory), and one the budget cannot take
	// fails with a *membudget.Error. nil: no budget.
	Memory *membudget.Budget
}

// Store is the data directory. Its methods are safe for concurrent use.
type Store struct {
	Files
	meta Meta
	log  *slog.Logger
	now  func() time.Time

	host string // this process's host name and pid, in shared mode
	pid  int

	shardSize int64 // Config.ShardSize, 0 made DefaultShardSize
	memory    *membudget.Budget

	mu       sync.Mutex        // serialises changes that touch files and metadata together
	relabel  sync.Mutex        // one relabel at a time: each writes the next data file
	results  sync.Mutex        // serialises changes to committed result directories (commit, remove, derive)
	problems map[string]string // id → problem found by Open (stored files missing)
	verified *verifiedFiles    // result files whose checksums matched
}

// Open opens (or creates) the data directory and recovers from any crash:
// staging files are removed, files that have no metadata are removed, and
// records whose files are missing are reported by Problem.
func Open(cfg Config) (*Store, error) {
	s := &Store{Files: Files{dir: cfg.Dir, fs: cfg.FS, data: newDataFiles(), details: newDetailsCache()}, log: cfg.Logger, now: cfg.Now, problems: map[string]string{}, verified: newVerifiedFiles()}
	s.memory = cfg.Memory
	if s.fs == nil {
		s.fs = OSFS{}
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	switch s.shardSize = cfg.ShardSize; {
	case s.shardSize == 0:
		s.shardSize = DefaultShardSize
	case s.shardSize < 0:
		s.shardSize = 0 // writeData: never
	}
	for _, d := range []string{s.dir, s.path("datasets"), s.path("jobs"), s.path("tmp")} {
		if err := s.fs.MkdirAll(d, 0o750); err != nil {
			return nil, fmt.Errorf("creating the data directory: %w", err)
		}
	}
	meta := cfg.Meta
	if meta == nil {
		// Before bbolt makes meta.db: a shared directory stays free of it.
		if err := s.refuseShared(); err != nil {
			return nil, err
		}
		m, err := openBolt(s.path("meta.db"), s.dir)
		if err != nil {
			return nil, err
		}
		meta = m
	}
	s.meta = meta
	if err := s.start(cfg); err != nil {
		meta.Close()
		return nil, err
	}
	return s, nil
}

// start binds the directory to its metadata, recovers, and in shared mode
// makes this process's staging directory.
func (s *Store) start(cfg Config) error {
	if err := s.bindDirectory(); err != nil {
		return err
	}
	if s.shared() {
		s.host, s.pid = cfg.Host, cfg.PID
		if s.host == "" {
			h, err := os.Hostname()
			if err != nil {
				return fmt.Errorf("naming this process's staging directory: %w", err)
			}
			s.host = h
		}
		if s.pid == 0 {
			s.pid = os.Getpid()
		}
	}
	if err := s.recover(); err != nil {
		return err
	}
	if s.shared() {
		dir, err := s.fs.MkdirTemp(s.path("tmp"), stagingName(s.host, s.pid))
		if err != nil {
			return fmt.Errorf("creating this process's staging directory: %w", err)
		}
		s.tmp = dir
	}
	return nil
}

// Close closes the metadata store. In shared mode it first removes this
// process's staging directory.
func (s *Store) Close() error {
	if s.tmp != "" {
		if err := s.fs.RemoveAll(s.tmp); err != nil {
			s.log.Warn("removing this process's staging directory", "path", s.tmp, "err", err)
		}
	}
	if err := s.meta.Close(); err != nil {
		return fmt.Errorf("closing the metadata store: %w", err)
	}
	return nil
}

// Dir returns the data directory.
func (s *Store) Dir() string { return s.dir }

func (f *Files) path(elem ...string) string {
	return filepath.Join(append([]string{f.dir}, elem...)...)
}

// recover brings files and metadata back in line after a crash.
func (s *Store) recover() error {
	staged, err := s.fs.ReadDir(s.path("tmp"))
	if err != nil {
		return fmt.Errorf("reading the staging directory: %w", err)
	}
	now := time.Now()
	for _, e := range staged {
		if s.shared() {
			why, stale := s.staleStaging(e, now)
			if !stale {
				s.log.Info("recovery: keeping another process's staging directory", "path", e.Name())
				continue
			}
			s.log.Info("recovery: removing a staging directory", "path", e.Name(), "because", why)
		} else {
			s.log.Info("recovery: removing an unfinished upload", "path", e.Name())
		}
		if err := s.fs.RemoveAll(s.path("tmp", e.Name())); err != nil {
			return fmt.Errorf("removing an unfinished upload: %w", err)
		}
	}
	recs, err := s.Datasets()
	if err != nil {
		return err
	}
	if err := s.upgradeRecords(context.Background(), recs); err != nil {
		return err
	}
	if recs, err = s.Datasets(); err != nil {
		return err
	}
	known := make(map[string]DatasetRecord, len(recs))
	for _, r := range recs {
		known[r.ID] = r
	}
	dirs, err := s.fs.ReadDir(s.path("datasets"))
	if err != nil {
		return fmt.Errorf("reading the data set directory: %w", err)
	}
	for _, e := range dirs {
		rec, ok := known[e.Name()]
		if !ok && s.shared() && !s.orphanOld(s.path("datasets", e.Name()), now) {
			s.log.Info("recovery: keeping the files of a data set without a record, as another process may be committing it", "id", e.Name())
			continue
		}
		if !ok {
			s.log.Info("recovery: removing files of a data set that was never committed", "id", e.Name())
			if err := s.fs.RemoveAll(s.path("datasets", e.Name())); err != nil {
				return fmt.Errorf("removing an uncommitted data set: %w", err)
			}
			continue
		}
		if err := s.removeStaleDataFiles(rec, now); err != nil {
			return err
		}
	}
	jobs, err := s.LoadJobs()
	if err != nil {
		return err
	}
	resultDirs, err := s.fs.ReadDir(s.path("jobs"))
	if err != nil {
		return fmt.Errorf("reading the results directory: %w", err)
	}
	for _, e := range resultDirs {
		if _, ok := jobs[e.Name()]; !ok {
			if s.shared() && !s.orphanOld(s.path("jobs", e.Name()), now) {
				s.log.Info("recovery: keeping the results of a job without a record, as another process may be committing it", "id", e.Name())
				continue
			}
			s.log.Info("recovery: removing results of a job that no longer exists", "id", e.Name())
			if err := s.fs.RemoveAll(s.path("jobs", e.Name())); err != nil {
				return fmt.Errorf("removing orphaned results: %w", err)
			}
		}
	}
	if err := s.recoverPartials(jobs, now); err != nil {
		return err
	}
	for _, r := range recs {
		_, err := s.fs.Stat(s.path("datasets", r.ID, r.DataFile))
		if err == nil && r.DetailsFile != "" {
			_, err = s.fs.Stat(s.path("datasets", r.ID, r.DetailsFile))
		}
		if err != nil {
			s.problems[r.ID] = "its stored files are missing or unreadable; delete it and upload it again"
			s.log.Error("recovery: data set files missing", "id", r.ID, "err", err)
		}
	}
	return nil
}

// removeStaleDataFiles removes data files a crashed relabel left behind.
func (s *Store) removeStaleDataFiles(rec DatasetRecord, now time.Time) error {
	files, err := s.fs.ReadDir(s.path("datasets", rec.ID))
	if err != nil {
		return fmt.Errorf("reading data set %s: %w", rec.ID, err)
	}
	for _, f := range files {
		n := f.Name()
		if n == rec.DataFile || n == rec.DetailsFile || n == sourceFile || n == xmlFile || n == foldsFile {
			continue
		}
		if s.shared() && !s.orphanOld(s.path("datasets", rec.ID, n), now) {
			continue // another process's relabel may be about to commit it
		}
		s.log.Info("recovery: removing a stale file", "id", rec.ID, "file", n)
		if err := s.fs.RemoveAll(s.path("datasets", rec.ID, n)); err != nil { // a shard directory too
			return fmt.Errorf("removing a stale file of data set %s: %w", rec.ID, err)
		}
	}
	return nil
}

// Problem returns what is wrong with a stored data set, or "".
func (s *Store) Problem(id string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.problems[id]
}
