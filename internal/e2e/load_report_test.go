//go:build load

package e2e

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// ldReport is everything the load test measured.
type ldReport struct {
	Started   time.Time
	Total     time.Duration
	Failed    bool
	Machine   ldMachine
	Uploads   ldUploadStats
	Jobs      ldJobStats
	Reads     []ldRouteStats // while the jobs ran
	RestReads []ldRouteStats // after them, in the same order
	Memory    ldMemStats
	MaxHWM    int64
	StopTime  time.Duration // graceful stop after the load
	// Setup says what served the load ("" : one server with its
	// default flags); the memory figures are of the process watched.
	Setup string
}

type ldUploadStats struct {
	File                                     string
	Bytes                                    int
	N, Accepted, Refused, TooLarge, Failures int
	Wall                                     time.Duration
	Took                                     []time.Duration // per upload, first try to final answer
	Tries201, Tries429                       []time.Duration // per try
}

type ldJobStats struct {
	Submitted, Accepted, Refused, Succeeded, Failures int
	Wall                                              time.Duration
	Submit, Wait, Run                                 []time.Duration
}

type ldRouteStats struct {
	Kind     string
	Failures int
	Took     []time.Duration
}

// ldQuantile is the q-quantile of ds by the nearest-rank method (the
// smallest value with at least q of the values at or below it); 0 for
// none.
func ldQuantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	k := int(math.Ceil(float64(len(s))*q)) - 1
	return s[min(max(k, 0), len(s)-1)]
}

// ldDur formats a duration for the report: milliseconds below 1 s.
func ldDur(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.2f s", d.Seconds())
}

func ldMiB(n int64) string { return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20)) }

// ldLatencyRow is a markdown table row: the name, count, p50, p99, max.
func ldLatencyRow(name string, ds []time.Duration, extra ...string) string {
	cells := []string{name, strconv.Itoa(len(ds))}
	cells = append(cells, extra...)
	if len(ds) == 0 {
		cells = append(cells, "–", "–", "–")
	} else {
		cells = append(cells, ldDur(ldQuantile(ds, 0.5)), ldDur(ldQuantile(ds, 0.99)), ldDur(slices.Max(ds)))
	}
	return "| " + strings.Join(cells, " | ") + " |\n"
}

// markdown renders the report.
func (r *ldReport) markdown() string {
	var b strings.Builder
	verdict := "passed"
	if r.Failed {
		verdict = "FAILED"
	}
	m := r.Machine
	fmt.Fprintf(&b, "## Load test, %s: %s\n\n", r.Started.Format("2006-01-02 15:04 UTC"), verdict)
	fmt.Fprintf(&b, "Machine: %d cores (nproc), %s, %s. Load average (1, 5, 15 min) %s at the start, %s at the end. "+
		"The whole test took %.1f s.\n\n", m.CPUs, m.CPU, m.Go, m.LoadStart, m.LoadEnd, r.Total.Seconds())
	setup := r.Setup
	if setup == "" {
		setup = "the real binary on loopback with its default flags (workers = the number of cores, " +
			"-max-queued 100, -max-upload 1GiB), its data directory a fresh temporary directory"
	}
	fmt.Fprintf(&b, "Server: %s.\n\n", setup)

	u := r.Uploads
	fmt.Fprintf(&b, "### Uploads\n\n%d uploads of %s (%d bytes; 2417 rows × 103 features + 14 labels) released at once; "+
		"a 429 is tried again after its Retry-After (at most %d tries).\n\n", u.N, u.File, u.Bytes, ldMaxAttempts)
	b.WriteString("| uploads | accepted (201) | 429 answers | 413 | failures | wall time |\n|---:|---:|---:|---:|---:|---:|\n")
	fmt.Fprintf(&b, "| %d | %d | %d | %d | %d | %.2f s |\n\n", u.N, u.Accepted, u.Refused, u.TooLarge, u.Failures, u.Wall.Seconds())
	b.WriteString("| latency | n | p50 | p99 | max |\n|---|---:|---:|---:|---:|\n")
	b.WriteString(ldLatencyRow("an upload, first try to final answer (waits included)", u.Took))
	b.WriteString(ldLatencyRow("one try answered 201", u.Tries201))
	b.WriteString(ldLatencyRow("one try answered 429", u.Tries429))

	j := r.Jobs
	fmt.Fprintf(&b, "\n### Jobs\n\n%d submissions released at once, each job on one of the uploaded data sets in turn: %s.\n\n",
		j.Submitted, ldJobDescription)
	b.WriteString("| submitted | accepted (202) | 429 answers | succeeded | failures | wall time |\n|---:|---:|---:|---:|---:|---:|\n")
	fmt.Fprintf(&b, "| %d | %d | %d | %d | %d | %.1f s |\n\n", j.Submitted, j.Accepted, j.Refused, j.Succeeded, j.Accepted-j.Succeeded+j.Failures, j.Wall.Seconds())
	b.WriteString("| per job | n | p50 | p99 | max |\n|---|---:|---:|---:|---:|\n")
	b.WriteString(ldLatencyRow("submission (POST /api/jobs)", j.Submit))
	b.WriteString(ldLatencyRow("wait in the queue", j.Wait))
	b.WriteString(ldLatencyRow("run", j.Run))

	fmt.Fprintf(&b, "\n### Reads while the jobs ran\n\n%d readers, each going round the routes with %v between reads; "+
		"a latency runs to the last byte of the answer. The last columns are the same readers for %v after the jobs, with no job running.\n\n",
		ldReaders, ldReadPause, ldRestReads)
	b.WriteString("| route | reads | failures | p50 | p99 | max | at rest: reads | p50 | p99 |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for i, rs := range r.Reads {
		row := strings.TrimSuffix(ldLatencyRow(rs.Kind, rs.Took, strconv.Itoa(rs.Failures)), "\n")
		var rest string
		if i < len(r.RestReads) && len(r.RestReads[i].Took) > 0 {
			q := r.RestReads[i].Took
			rest = fmt.Sprintf(" %d | %s | %s |", len(q), ldDur(ldQuantile(q, 0.5)), ldDur(ldQuantile(q, 0.99)))
		} else {
			rest = " – | – | – |"
		}
		b.WriteString(row + rest + "\n")
	}

	mem := r.Memory
	fmt.Fprintf(&b, "\n### Server memory and CPU\n\nVmRSS and VmHWM of the server process (in the shared mode, the first web process) from /proc/PID/status, every %v (%d samples); "+
		"CPU time from /proc/stat and /proc/PID/stat: the server's, this test's (its clients) and the rest of the machine's, "+
		"against the capacity (cores × wall time).\n\n", mem.Every, mem.Samples)
	if mem.Samples == 0 {
		fmt.Fprintf(&b, "No sample: %s\n", mem.Err)
	} else {
		b.WriteString("| phase | wall time | peak VmRSS | VmHWM at its end | server CPU | test CPU | other CPU | capacity |\n" +
			"|---|---:|---:|---:|---:|---:|---:|---:|\n")
		for _, p := range mem.Phases {
			cpu := "? | ? | ?"
			if p.CPUOK {
				cpu = fmt.Sprintf("%.1f s | %.1f s | %.1f s", p.Server.Seconds(), p.Self.Seconds(), p.Others.Seconds())
			}
			fmt.Fprintf(&b, "| %s | %.1f s | %s | %s | %s | %.1f s |\n", p.Name, p.Wall.Seconds(), ldMiB(p.PeakRSS), ldMiB(p.HWM),
				cpu, p.Wall.Seconds()*float64(r.Machine.CPUs))
		}
		fmt.Fprintf(&b, "\nPeak (VmHWM) %s, bound %s; VmRSS %s at the start, %s at the end. ",
			ldMiB(mem.HWM), ldMiB(r.MaxHWM), ldMiB(mem.Start), ldMiB(mem.End))
	}
	fmt.Fprintf(&b, "Graceful stop after the load: %.2f s.\n", r.StopTime.Seconds())
	return b.String()
}

// ldWriteReport logs the report and writes it to $MLDR_LOAD_REPORT when
// that is set (a relative path is relative to internal/e2e).
func ldWriteReport(t *testing.T, r *ldReport) {
	t.Helper()
	md := r.markdown()
	t.Logf("load report:\n%s", md)
	p := os.Getenv("MLDR_LOAD_REPORT")
	if p == "" {
		return
	}
	if err := os.WriteFile(p, []byte(md), 0o644); err != nil {
		t.Errorf("writing the load report: %v", err)
		return
	}
	abs, _ := filepath.Abs(p)
	t.Logf("load report written to %s", abs)
}
