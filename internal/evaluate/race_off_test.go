//go:build !race

package evaluate

// RaceEnabled: see race_on_test.go.
const RaceEnabled = false
