package e2e

import (
	"testing"

	"mldr/internal/pgtest"
)

// TestMain gives the shared-mode tests a throwaway PostgreSQL (pgtest);
// the other tests do not use it.
func TestMain(m *testing.M) { pgtest.Main(m) }
