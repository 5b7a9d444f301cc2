//go:build load

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// What the load test reads of the machine and of the server process, from
// /proc (Linux only).

type ldMachine struct {
	CPUs               int
	CPU, Go            string
	LoadStart, LoadEnd string
}

// ldReadMachine describes the machine: nproc, the CPU model, the Go
// version and the load average now.
func ldReadMachine(ctx context.Context) ldMachine {
	m := ldMachine{CPUs: runtime.NumCPU(), Go: runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH, LoadStart: ldLoadavg()}
	if out, err := exec.CommandContext(ctx, "nproc").Output(); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(out))); err == nil {
			m.CPUs = n
		}
	}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	return m
}

// ldLoadavg is the 1, 5 and 15 minute load averages of /proc/loadavg.
func ldLoadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// ldProcMem is a process's resident memory, in bytes.
type ldProcMem struct{ RSS, HWM int64 }

// ldProcStatus reads VmRSS and VmHWM from /proc/<pid>/status (pid 0: this
// process).
func ldProcStatus(pid int) (ldProcMem, error) {
	p := "/proc/self/status"
	if pid != 0 {
		p = fmt.Sprintf("/proc/%d/status", pid)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return ldProcMem{}, err
	}
	var m ldProcMem
	var found int
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || (k != "VmRSS" && k != "VmHWM") {
			continue
		}
		f := strings.Fields(v) // "61532 kB"
		if len(f) != 2 || f[1] != "kB" {
			return m, fmt.Errorf("%s: %s: unexpected %q", p, k, v)
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return m, fmt.Errorf("%s: %s: %w", p, k, err)
		}
		if k == "VmRSS" {
			m.RSS = n << 10
		} else {
			m.HWM = n << 10
		}
		found++
	}
	if found != 2 {
		return m, fmt.Errorf("%s: no VmRSS and VmHWM", p)
	}
	return m, nil
}

// ldCPU is a reading of CPU time in clock ticks (USER_HZ): the machine's
// busy and total time from /proc/stat, and the server's and this test
// process's own time (utime + stime) from /proc/<pid>/stat.
type ldCPU struct {
	at                  time.Time
	busy, total         int64
	server, self        int64
	machineOK, serverOK bool
}

// ldUserHZ is the unit of /proc/stat and /proc/<pid>/stat, 100 on every
// Linux port Go supports (sysconf(_SC_CLK_TCK)).
const ldUserHZ = 100

func ldReadCPU(pid int) ldCPU {
	c := ldCPU{at: time.Now()}
	if b, err := os.ReadFile("/proc/stat"); err == nil {
		line, _, _ := strings.Cut(string(b), "\n")
		f := strings.Fields(line) // cpu user nice system idle iowait irq softirq steal guest guest_nice
		if len(f) >= 9 && f[0] == "cpu" {
			for i, v := range f[1:9] {
				n, _ := strconv.ParseInt(v, 10, 64)
				c.total += n
				if i != 3 && i != 4 { // idle, iowait
					c.busy += n
				}
			}
			c.machineOK = true
		}
	}
	var err error
	c.server, err = ldProcTicks(pid)
	c.serverOK = err == nil
	c.self, _ = ldProcTicks(0)
	return c
}

// ldProcTicks is a process's utime + stime (pid 0: this process).
func ldProcTicks(pid int) (int64, error) {
	p := "/proc/self/stat"
	if pid != 0 {
		p = fmt.Sprintf("/proc/%d/stat", pid)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return 0, err
	}
	// The command name, in parentheses, may hold spaces: fields count from
	// the last ")". After it come state (field 3) … utime (14), stime (15).
	i := bytes.LastIndexByte(b, ')')
	f := strings.Fields(string(b[i+1:]))
	if i < 0 || len(f) < 13 {
		return 0, fmt.Errorf("%s: too few fields", p)
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("%s: utime %q, stime %q", p, f[11], f[12])
	}
	return ut + st, nil
}

// ldPhase is what the watcher saw during one phase of the test.
type ldPhase struct {
	Name    string
	Wall    time.Duration
	Samples int
	PeakRSS int64
	HWM     int64 // VmHWM at the phase's last sample: the peak so far, between samples too
	// CPU time spent during the phase by the server, by this test
	// process (its clients) and by everything else on the machine; ok
	// is false when /proc could not tell.
	Server, Self, Others time.Duration
	CPUOK                bool
}

type ldMemStats struct {
	Phases     []ldPhase
	Samples    int
	Start, End int64 // VmRSS at the first and last sample
	HWM        int64
	Every      time.Duration
	Err        string // why no sample could be taken
}

// ldWatch follows the server process: its resident memory, sampled until
// stopped, and the CPU time it, this test and the rest of the machine
// spend in each phase.
type ldWatch struct {
	pid    int
	cancel context.CancelFunc
	done   chan struct{}

	mu    sync.Mutex
	stats ldMemStats
	cpu   ldCPU // at the start of the current phase
}

// ldWatchServer starts following pid, sampling its memory every interval,
// in a phase named "idle" until phase names another.
func ldWatchServer(pid int, every time.Duration) *ldWatch {
	ctx, cancel := context.WithCancel(context.Background())
	m := &ldWatch{pid: pid, cancel: cancel, done: make(chan struct{}), cpu: ldReadCPU(pid),
		stats: ldMemStats{Phases: []ldPhase{{Name: "idle"}}, Every: every}}
	go func() {
		defer close(m.done)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			m.sample()
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return m
}

func (m *ldWatch) sample() {
	pm, err := ldProcStatus(m.pid)
	m.mu.Lock()
	defer m.mu.Unlock()
	s := &m.stats
	if err != nil {
		if s.Err == "" {
			s.Err = err.Error()
		}
		return
	}
	if s.Samples == 0 {
		s.Start = pm.RSS
	}
	s.Samples++
	s.End = pm.RSS
	s.HWM = max(s.HWM, pm.HWM)
	ph := &s.Phases[len(s.Phases)-1]
	ph.Samples++
	ph.PeakRSS = max(ph.PeakRSS, pm.RSS)
	ph.HWM = pm.HWM
}

// endPhase closes the current phase with a last sample and its CPU time.
func (m *ldWatch) endPhase() {
	m.sample()
	now := ldReadCPU(m.pid)
	m.mu.Lock()
	defer m.mu.Unlock()
	ph := &m.stats.Phases[len(m.stats.Phases)-1]
	was := m.cpu
	tick := func(n int64) time.Duration { return time.Duration(n) * time.Second / ldUserHZ }
	ph.Wall = now.at.Sub(was.at)
	ph.CPUOK = now.machineOK && was.machineOK && now.serverOK && was.serverOK
	if ph.CPUOK {
		ph.Server, ph.Self = tick(now.server-was.server), tick(now.self-was.self)
		ph.Others = max(tick(now.busy-was.busy)-ph.Server-ph.Self, 0)
	}
	m.cpu = now
}

// phase starts a new phase.
func (m *ldWatch) phase(name string) {
	m.endPhase()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.stats.Phases = append(m.stats.Phases, ldPhase{Name: name})
}

// stop ends the current phase and the sampling and returns what was seen;
// it may be called more than once.
func (m *ldWatch) stop() ldMemStats {
	select {
	case <-m.done:
	default:
		m.endPhase()
		m.cancel()
		<-m.done
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.stats
	s.Phases = slices.Clone(s.Phases)
	return s
}
