//go:build !race

package analysis_test

// raceEnabled: see race_on_test.go.
const raceEnabled = false
