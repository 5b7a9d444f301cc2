//go:build race

package worker

// raceEnabled: the race detector maps terabytes of shadow address space,
// so a race-enabled worker cannot run under RLIMIT_AS.
const raceEnabled = true
