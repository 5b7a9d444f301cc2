package runcli

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"mldr/internal/analysis"
	"mldr/internal/jobs"
)

// progress shows a run's progress: on a terminal a bar per phase, redrawn
// in place; otherwise a line per phase (load, fit of each method,
// evaluate, write, …), so that a log keeps one line each.
type progress struct {
	w   io.Writer
	bar bool
	now func() time.Time

	mu    sync.Mutex
	label string    // the phase shown
	drawn time.Time // a bar's last drawing
}

// barEvery is how often a bar is redrawn within a phase.
const barEvery = 100 * time.Millisecond

// barWidth is a bar's width in characters.
const barWidth = 30

// step starts a phase of the run itself (outside the executor).
func (p *progress) step(phase, message string) { p.show(-1, phase, message) }

// report is the executor's jobs.Report.
func (p *progress) report(f float64, phase, message string) {
	p.show(f, phaseLabel(phase, message), detail(phase, message))
}

// show shows the run at f (0…1; < 0: unknown) in phase label.
func (p *progress) show(f float64, label, message string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	changed := label != p.label
	if !p.bar {
		if changed {
			p.label = label
			line := label
			if message != "" {
				line += ": " + message
			}
			if f >= 0 {
				line = fmt.Sprintf("[%3.0f%%] %s", 100*f, line)
			}
			fmt.Fprintln(p.w, line)
		}
		return
	}
	now := p.now()
	if !changed && now.Sub(p.drawn) < barEvery {
		return
	}
	if changed && p.label != "" {
		fmt.Fprintln(p.w) // the last phase's bar stays as it ended
	}
	p.label, p.drawn = label, now
	fmt.Fprintf(p.w, "\r\033[K%-16s %s %s", cut(label, 16), drawBar(f), cut(message, 60))
}

// done ends the last phase's bar.
func (p *progress) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar && p.label != "" {
		fmt.Fprintln(p.w)
	}
	p.label = ""
}

// drawBar is "[#####-----] 42%", or a bar of dots when f is unknown.
func drawBar(f float64) string {
	if f < 0 {
		return "[" + strings.Repeat(".", barWidth) + "]     "
	}
	n := int(min(max(f, 0), 1) * barWidth)
	return fmt.Sprintf("[%s%s] %3.0f%%", strings.Repeat("#", n), strings.Repeat("-", barWidth-n), 100*f)
}

// cut shortens s to n characters.
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// phaseLabel names an executor phase as the run shows it: the job's
// phase (jobs.PhaseOf), with the method a fit or a write is of and the
// data set of a study's step.
func phaseLabel(phase, message string) string {
	name := jobs.PhaseOf(phase)
	switch name {
	case jobs.PhaseFit, jobs.PhaseWrite:
		if id, ok := methodOf(phase); ok {
			return name + " " + id
		}
	case jobs.PhaseLoad, jobs.PhaseEvaluate:
		// A study loads and evaluates "data set i of n (name): …".
		if where, _, ok := strings.Cut(message, ": "); ok && strings.HasPrefix(where, "data set ") {
			return name + " " + strings.TrimPrefix(where, "data set ")
		}
	}
	return name
}

// methodOf is the method an executor phase names: "fitting pca",
// "writing pca", "pca: eigen-decomposition".
func methodOf(phase string) (string, bool) {
	for _, prefix := range []string{"fitting ", "writing "} {
		if id, ok := strings.CutPrefix(phase, prefix); ok {
			return id, true
		}
	}
	if id, _, ok := strings.Cut(phase, ": "); ok {
		if _, known := analysis.Lookup(id); known {
			return id, true
		}
	}
	return "", false
}

// detail is what a phase's line adds to its label.
func detail(phase, message string) string {
	if _, what, ok := strings.Cut(phase, ": "); ok {
		return what
	}
	if _, what, ok := strings.Cut(message, ": "); ok && strings.HasPrefix(message, "data set ") {
		return what
	}
	return message
}
