package store

import "context"

// Meta is where the store keeps its metadata: the data set records, the
// job records and the jobs' selections. The files stay in the data
// directory; Meta holds only the records that name them.
//
// Two implementations exist: bbolt in the data directory (meta.db, the
// default: one process, one machine) and PostgreSQL (package pgmeta, the
// shared mode: several processes, on several machines, over one data
// location). The store's rules do not change with it: files are written
// and made durable first, then their record is committed; a delete
// removes the record first, then the files.
//
// Job records and selections are opaque bytes (their owners encode them);
// an implementation gives back the same bytes it was given. Every method
// is safe for concurrent use; every change is one transaction, durable when
// the method returns.
type Meta interface {
	// Datasets returns every data set record, in any order.
	Datasets(ctx context.Context) ([]DatasetRecord, error)
	// Dataset returns the record id, or an error wrapping ErrNotFound.
	Dataset(ctx context.Context, id string) (DatasetRecord, error)
	// PutDataset stores rec under rec.ID, replacing any record there.
	PutDataset(ctx context.Context, rec DatasetRecord) error
	// UpdateDataset replaces the record id with next only if the stored
	// record's Gen is still gen: an error wrapping ErrConflict when it is
	// not, ErrNotFound when there is no record id.
	UpdateDataset(ctx context.Context, id string, gen int, next DatasetRecord) error
	// DeleteDataset removes the record id; removing a record that is not
	// there is not an error.
	DeleteDataset(ctx context.Context, id string) error

	// SaveJob stores (or replaces) the job record id.
	SaveJob(ctx context.Context, id string, data []byte) error
	// Jobs returns every job record by id.
	Jobs(ctx context.Context) (map[string][]byte, error)
	// DeleteJob removes the job record id and every selection of the job
	// in one transaction; removing a record that is not there is not an
	// error.
	DeleteJob(ctx context.Context, id string) error

	// SaveSelection stores (or replaces) the selection name of job. The
	// job need not have a record.
	SaveSelection(ctx context.Context, job, name string, data []byte) error
	// Selections returns the selections of job by name.
	Selections(ctx context.Context, job string) (map[string][]byte, error)
	// DeleteSelection removes the selection name of job, or returns an
	// error wrapping ErrNotFound when there is none.
	DeleteSelection(ctx context.Context, job, name string) error

	// Instance identifies the metadata store for the data directory: ""
	// for the embedded one (meta.db in the directory itself), and a
	// stable identifier of the database for a shared one, which Open
	// writes into the directory so that a data directory is never used
	// with two databases, nor with its embedded store and a database.
	Instance() string
	// Close releases the metadata store.
	Close() error
}
