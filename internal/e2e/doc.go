// Package e2e holds the end-to-end tests: the real webapp binary on a real
// port with a real data directory, driven over HTTP and in headless
// Chromium, and killed with SIGKILL to check that nothing is lost.
//
// Browser tests need /usr/bin/chromium (Debian's chromium package). Without
// it they are skipped, unless MLDR_REQUIRE_BROWSER=1 (as in CI), when they
// fail. Set MLDR_SCREENSHOTS=DIR to keep screenshots of every page visited.
//
// The Python client's test (clients/python/test_mldr.py) needs
// /usr/bin/python3 with numpy (Debian's python3-numpy) and ../shared's
// emotions; without them it is skipped, unless MLDR_REQUIRE_SHARED=1.
package e2e
