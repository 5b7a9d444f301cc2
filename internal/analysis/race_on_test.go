//go:build race

package analysis

// RaceEnabled: the race detector slows numeric code 5–10 times; the
// heaviest comparisons run in the build without it (.ci/run's openblas
// pass runs this package without -race).
const RaceEnabled = true
