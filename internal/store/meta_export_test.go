package store

// OpenBoltMeta opens the embedded Meta at path, for the tests of the Meta
// interface in package store_test.
func OpenBoltMeta(path string) (Meta, error) { return openBolt(path, path) }
