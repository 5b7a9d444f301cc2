package store

import (
	"testing"

	"mldr/internal/pgtest"
)

// TestMain gives the backend tests (backends_test.go) a throwaway
// PostgreSQL; without one they run on bbolt alone and say so.
func TestMain(m *testing.M) { pgtest.Main(m) }
