package worker

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
)

// DefaultMemoryLimit is the memory a job may use when no limit is given:
// half the machine's memory, or half the cgroup's limit when the server
// runs in a cgroup with a lower one (a container). 0 when neither can be
// read.
func DefaultMemoryLimit() int64 {
	total := memTotal()
	if cg := cgroupLimit(); cg > 0 && (total == 0 || cg < total) {
		total = cg
	}
	return total / 2
}

// memTotal is MemTotal of /proc/meminfo, in bytes.
func memTotal() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			f := strings.Fields(v)
			if len(f) > 0 {
				kb, _ := strconv.ParseInt(f[0], 10, 64)
				return kb << 10
			}
		}
	}
	return 0
}

// cgroupLimit is the memory limit of this process's cgroup (v2's
// memory.max or v1's memory.limit_in_bytes), 0 when there is none.
func cgroupLimit() int64 {
	for _, p := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err == nil && v > 0 && v < 1<<60 { // "max", or v1's page-rounded MaxInt64: no limit
			return v
		}
	}
	return 0
}
