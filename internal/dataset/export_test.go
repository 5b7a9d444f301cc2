package dataset

import "io"

// LoadChunked is Load with the CSV fast path's chunk size set: chunk bytes,
// or the plain loop alone when chunk < 0.
func LoadChunked(r io.Reader, opts Options, chunk int) (*Dataset, error) {
	opts.chunk = chunk
	return Load(r, opts)
}

// OnlyOptions returns the options LoadFeatures loads with.
func OnlyOptions(names []string) Options { return Options{only: names} }

// LoadLabelsStored is Load with the multi-label labels' form forced:
// StorageDense or StorageSparse.
func LoadLabelsStored(r io.Reader, opts Options, storage Storage) (*Dataset, error) {
	opts.labelStorage = storage
	return Load(r, opts)
}

// LoadStored is Load with the features' form forced: StorageDense or
// StorageSparse ("" chooses, as Load does).
func LoadStored(r io.Reader, opts Options, storage Storage) (*Dataset, error) {
	opts.storage = storage
	return Load(r, opts)
}
