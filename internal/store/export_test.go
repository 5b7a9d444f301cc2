package store

// ForgetVerified forgets every result file verified so far, as a restart
// does; for benchmarks.
func (s *Store) ForgetVerified() {
	s.verified.mu.Lock()
	defer s.verified.mu.Unlock()
	clear(s.verified.m)
}
