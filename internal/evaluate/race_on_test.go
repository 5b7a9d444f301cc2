//go:build race

package evaluate

// RaceEnabled: the race detector slows numeric code 5–10 times, so the
// heaviest comparisons check part of their cases under it; .ci/run's
// openblas pass runs this package without -race, every case.
const RaceEnabled = true
