package store

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"
	"time"
)

// The shared mode: with a shared metadata store (Config.Meta whose
// Instance is not ""), several processes, on one machine or several, use
// one data directory on a shared file system. Then:
//
//   - each process stages its uploads and results in a directory of its
//     own, tmp/<host>-<pid>-<random>/ (its worker processes too), so that
//     none mistakes another's work in progress for a crash's leftovers;
//   - recovery at Open removes only what no live process can own: the
//     staging of dead processes of this host (and of this process's own
//     pid, a previous life's), and any staging older than StaleStaging;
//     files that no record names (a data set's or a job's directory, a
//     data file of a relabel) only once older than OrphanAge, as another
//     process may be about to commit their record;
//   - the directory is bound to its database: Open writes the database's
//     identity to DatabaseIDFile and refuses a directory that holds
//     another database's, or an embedded store's meta.db; the embedded
//     mode refuses a directory that has a DatabaseIDFile.

// DatabaseIDFile is the file of a shared data directory that holds the
// identity of its database (Meta.Instance).
const DatabaseIDFile = "database-id"

// StaleStaging is the age beyond which recovery in shared mode removes a
// staging directory whatever process made it.
const StaleStaging = 24 * time.Hour

// OrphanAge is the age beyond which recovery in shared mode removes files
// that no record names.
const OrphanAge = time.Hour

// shared reports whether the store is in shared mode.
func (s *Store) shared() bool { return s.meta.Instance() != "" }

// databaseID reads the data directory's DatabaseIDFile: "" when there
// is none.
func (s *Store) databaseID() (string, error) {
	b, err := s.readSmall(s.path(DatabaseIDFile))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", s.path(DatabaseIDFile), err)
	}
	return strings.TrimSpace(string(b)), nil
}

// refuseShared refuses, in embedded mode, a data directory that belongs
// to a database.
func (s *Store) refuseShared() error {
	have, err := s.databaseID()
	if err != nil || have == "" {
		return err
	}
	return fmt.Errorf("the data directory %s belongs to a shared deployment (its metadata are in the PostgreSQL database %s, see %s): start with that database (-database), or choose another data directory", s.dir, have, DatabaseIDFile)
}

// bindDirectory checks, in shared mode, that the data directory belongs
// to the store's database, and binds a new one to it.
func (s *Store) bindDirectory() error {
	if !s.shared() {
		return nil
	}
	have, err := s.databaseID()
	if err != nil {
		return err
	}
	want := s.meta.Instance()
	if have == want {
		return nil
	}
	if have != "" {
		return fmt.Errorf("the data directory %s belongs to another database (%s says %s, this database is %s): give each database its own data directory", s.dir, DatabaseIDFile, have, want)
	}
	if _, err := s.fs.Stat(s.path("meta.db")); err == nil {
		return fmt.Errorf("the data directory %s holds an embedded store (meta.db): its data sets and jobs are recorded there, not in the database; use a new data directory for the shared mode, or start without -database", s.dir)
	}
	if err := writeFileAtomic(s.fs, s.path(DatabaseIDFile), func(w io.Writer) error {
		_, err := io.WriteString(w, want+"\n")
		return err
	}); err != nil {
		return fmt.Errorf("binding the data directory to its database: %w", err)
	}
	return nil
}

// readSmall reads a small file through the store's FS.
func (s *Store) readSmall(path string) ([]byte, error) {
	f, err := s.fs.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, 4096))
}

// stagingName is the name of a process's staging directory under tmp/
// without its random suffix: <host>-<pid>-.
func stagingName(host string, pid int) string {
	return safeHost(host) + "-" + strconv.Itoa(pid) + "-"
}

// safeHost keeps a host name to the characters a file name may safely
// have.
func safeHost(host string) string {
	b := []byte(host)
	for i, c := range b {
		if !nameChar(c) {
			b[i] = '_'
		}
	}
	if len(b) == 0 {
		return "host"
	}
	return string(b)
}

// parseStaging reads <host>-<pid>-<random> from the right.
func parseStaging(name string) (host string, pid int, ok bool) {
	i := strings.LastIndexByte(name, '-')
	if i <= 0 {
		return "", 0, false
	}
	j := strings.LastIndexByte(name[:i], '-')
	if j <= 0 {
		return "", 0, false
	}
	pid, err := strconv.Atoi(name[j+1 : i])
	if err != nil || pid <= 0 {
		return "", 0, false
	}
	return name[:j], pid, true
}

// staleStaging says whether recovery in shared mode may remove the
// staging entry e of tmp/, and why.
func (s *Store) staleStaging(e fs.DirEntry, now time.Time) (string, bool) {
	if info, err := e.Info(); err == nil && now.Sub(info.ModTime()) > StaleStaging {
		return "older than " + StaleStaging.String(), true
	}
	host, pid, ok := parseStaging(e.Name())
	if !ok || host != safeHost(s.host) {
		return "", false
	}
	if pid == s.pid {
		return "left by an earlier process with this one's pid", true
	}
	if !processAlive(pid) {
		return "its process " + strconv.Itoa(pid) + " is gone", true
	}
	return "", false
}

// orphanOld says whether a file or directory without a record is old
// enough for recovery in shared mode to remove it.
func (s *Store) orphanOld(path string, now time.Time) bool {
	info, err := s.fs.Stat(path)
	return err == nil && now.Sub(info.ModTime()) > OrphanAge
}
