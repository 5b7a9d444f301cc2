package worker

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"syscall"
)

// addressSlack is what a worker's address-space limit (RLIMIT_AS) allows
// beyond its memory limit: the Go runtime reserves about a gibibyte of
// address space it never touches (page summaries, arena index), and some
// limits just above that make it fail at start.
const addressSlack = 2 << 30

// limitMemory limits this process to about limit bytes (0: no limit): a
// soft limit for the garbage collector, which then works harder before
// the heap reaches it, and a hard limit of the address space (RLIMIT_AS),
// past which an allocation fails and the runtime exits with "out of
// memory". The pool also watches the resident memory (watch).
func limitMemory(limit int64) error {
	if limit == 0 {
		return nil
	}
	debug.SetMemoryLimit(limit - limit/8)
	if raceEnabled {
		return nil // the watch of the resident memory still applies
	}
	as := uint64(limit) + addressSlack
	return syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: as, Max: as})
}

// residentBytes is the resident memory of process pid (VmRSS).
func residentBytes(pid int) (int64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if v, ok := bytes.CutPrefix(sc.Bytes(), []byte("VmRSS:")); ok {
			f := bytes.Fields(v)
			if len(f) < 1 {
				break
			}
			kb, err := strconv.ParseInt(string(f[0]), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
}

// sysProcAttr starts a worker killed by the kernel when the server dies.
func sysProcAttr() *syscall.SysProcAttr {
	// Its own process group: a Ctrl-C in the terminal goes to the server,
	// which cancels the jobs and stops the workers in order.
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
}
