//go:build !race

package analysis

// RaceEnabled: see race_on_test.go.
const RaceEnabled = false
