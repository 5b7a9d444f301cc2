// Package e2e holds the end-to-end tests: the real webapp binary on a real
// port with a real data directory, driven over HTTP and in headless
// Chromium, and killed with SIGKILL to check that nothing is lost.
//
// Browser tests need /usr/bin/chromium (Debian's chromium package). Without
// it they are skipped, unless MLDR_REQUIRE_BROWSER=1 (as in CI), when they
// fail. Set MLDR_SCREENSHOTS=DIR to keep screenshots of every page visited.
package e2e
