package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
)

// The hidden flags with which the command runs as a Go child, or as the
// generator of a case's data.
const (
	childFlag    = "child"
	generateFlag = "generate"
)

// runChild runs name with args, decodes the childResult it prints and
// measures its peak memory. Its standard error is kept, and its last lines
// go into the error when it fails.
func runChild(ctx context.Context, name string, args ...string) outcome {
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var o outcome
	if cmd.ProcessState != nil {
		o.peakKiB = peakKiB(cmd.ProcessState)
	}
	if err != nil {
		o.err = fmt.Errorf("%s: %w%s", commandName(name, args), err, tail(stderr.String()))
		return o
	}
	if err := json.Unmarshal(stdout.Bytes(), &o.res); err != nil {
		o.err = fmt.Errorf("%s: reading its result %q: %w", commandName(name, args), tail(stdout.String()), err)
	}
	return o
}

// goChildArgs are the arguments that make this command a Go child for t.
func goChildArgs(t task) ([]string, error) {
	b, err := json.Marshal(t)
	if err != nil {
		return nil, fmt.Errorf("encoding the child's task: %w", err)
	}
	return []string{"-" + childFlag, string(b)}, nil
}

// pythonArgs are the arguments of a reference script (numpy's or scipy's)
// for t.
func pythonArgs(script string, t task) []string {
	args := []string{script, "run", "--work", t.Work,
		"--d", strconv.Itoa(t.D), "--reps", strconv.Itoa(t.Reps),
		"--warmup-under", strconv.FormatFloat(t.WarmupUnder, 'g', -1, 64), "--top", strconv.Itoa(t.Top)}
	for _, f := range []struct{ flag, v string }{{"--x", t.X}, {"--y", t.Y}, {"--a", t.A}} {
		if f.v != "" {
			args = append(args, f.flag, f.v)
		}
	}
	if t.CSR != nil {
		args = append(args, "--csr", strings.Join([]string{t.CSR.Indptr, t.CSR.Indices, t.CSR.Data}, ","), "--cols", strconv.Itoa(t.CSR.Cols))
	}
	if len(t.Classes) > 0 {
		cs := make([]string, len(t.Classes))
		for i, c := range t.Classes {
			cs[i] = strconv.Itoa(c)
		}
		args = append(args, "--classes", strings.Join(cs, ","))
	}
	if t.K > 0 {
		args = append(args, "--k", strconv.Itoa(t.K))
	}
	return args
}

// numpyInfo is what a reference script's info command prints; SciPy is
// the scipy and scikit-learn scripts'.
type numpyInfo struct {
	Numpy  string `json:"numpy"`
	Python string `json:"python"`
	BLAS   string `json:"blas"`
	SciPy  string `json:"scipy,omitempty"`
	// Sklearn is the numpy + scikit-learn script's alone.
	Sklearn string `json:"sklearn,omitempty"`
}

// probeNumPy asks a reference script which numpy and BLAS (and scipy) it
// runs on.
func probeNumPy(ctx context.Context, python, script string) (numpyInfo, error) {
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, python, script, "info")
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return numpyInfo{}, fmt.Errorf("asking %s %s which numpy it has: %w%s "+
			"(on Debian: apt-get install python3-numpy python3-scipy libopenblas0-pthread; or -python '' to run the Go side only)",
			python, script, err, tail(stderr.String()))
	}
	var info numpyInfo
	if err := json.Unmarshal(out, &info); err != nil {
		return numpyInfo{}, fmt.Errorf("reading what %s info printed: %w", script, err)
	}
	return info, nil
}

// commandName is a short name of a command line for messages: the task's
// JSON of a Go child is left out.
func commandName(name string, args []string) string {
	if len(args) > 0 && args[0] == "-"+childFlag {
		return "Go child"
	}
	return strings.Join(append([]string{name}, args...), " ")
}

// tail is the last lines of a child's output, set off for an error
// message, or "" for none.
func tail(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	lines := strings.Split(s, "\n")
	return ":\n\t" + strings.Join(lines[max(0, len(lines)-5):], "\n\t")
}
