//go:build !unix

package store

// processAlive cannot tell here, so it says yes: a staging directory of
// another process on this machine is then kept until it is a day old.
func processAlive(int) bool { return true }
