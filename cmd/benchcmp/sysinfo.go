package main

import (
	"bufio"
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
)

// cpuModel is the first "model name" of /proc/cpuinfo's text, or "unknown".
func cpuModel(cpuinfo string) string {
	sc := bufio.NewScanner(strings.NewReader(cpuinfo))
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(key) == "model name" {
			return strings.TrimSpace(val)
		}
	}
	return "unknown"
}

// loadAverages is the 1, 5 and 15 minute load averages of /proc/loadavg's
// text (the figures uptime prints), or "" when they are not there.
func loadAverages(loadavg string) string {
	f := strings.Fields(loadavg)
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

// machineCPU reads the CPU model of this machine.
func machineCPU() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	return cpuModel(string(b))
}

// machineLoad reads the load averages from /proc/loadavg, or failing that
// the line uptime prints.
func machineLoad() string {
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		if s := loadAverages(string(b)); s != "" {
			return s
		}
	}
	if out, err := exec.Command("uptime").Output(); err == nil {
		if _, after, ok := strings.Cut(string(out), "load average"); ok {
			return strings.Trim(strings.TrimSpace(after), ":s ")
		}
	}
	return "unknown"
}

// gonumVersion is the version of gonum this binary was built with.
func gonumVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if m.Path == "gonum.org/v1/gonum" {
				return m.Version
			}
		}
	}
	return "unknown"
}
