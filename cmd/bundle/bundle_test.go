package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// root is the repository's root, seen from this package.
const root = "../.."

func needModules(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(root, project, "node_modules")); err != nil {
		t.Skip("web/scatter/node_modules is missing: run npm ci --prefix web/scatter")
	}
}

// TestBundleIsCurrent rebuilds the scatter (twice: the same sources give
// the same bytes) and compares it with the committed web/static/scatter.js,
// as CI does.
func TestBundleIsCurrent(t *testing.T) {
	needModules(t)
	dir := t.TempDir()
	for _, p := range []string{project, "web/static"} {
		if err := os.MkdirAll(filepath.Join(dir, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	abs, _ := filepath.Abs(filepath.Join(root, project))
	for _, f := range []string{"package.json", "codegen.js", "src", "node_modules"} {
		if err := os.Symlink(filepath.Join(abs, f), filepath.Join(dir, project, f)); err != nil {
			t.Fatal(err)
		}
	}
	var outs [][]byte
	for range 2 {
		if _, err := bundle(dir); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, outFile))
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, b)
		os.Remove(filepath.Join(dir, outFile))
	}
	if !bytes.Equal(outs[0], outs[1]) {
		t.Fatal("two builds of the same sources differ")
	}
	committed, err := os.ReadFile(filepath.Join(root, outFile))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(outs[0], committed) {
		t.Errorf("%s is not what web/scatter builds (%d bytes, want %d): run go run ./cmd/bundle and commit", outFile, len(committed), len(outs[0]))
	}
}

// TestBanner checks that the bundle names what it holds with versions and
// licences, packages inlined by another's build too, and ends with their
// licence texts.
func TestBanner(t *testing.T) {
	needModules(t)
	_, pkgs, err := build(root, entry, true)
	if err != nil {
		t.Fatal(err)
	}
	b := banner(pkgs)
	for _, want := range []string{
		" *   regl-scatterplot 1.16.0 (MIT)\n",
		" *   @plotly/regl 2.1.2 (MIT)\n",
		" *   pub-sub-es 3.0.0 (MIT)\n",
		" *   earcut 3.2.4 (ISC, inside regl-scatterplot's build)\n",
	} {
		if !strings.Contains(b, want) {
			t.Errorf("the banner lacks %q:\n%s", want, b)
		}
	}
	if strings.Contains(b, " regl 2.1.1") {
		t.Errorf("the banner names regl, which the alias replaced:\n%s", b)
	}
	n := notices(pkgs)
	if !strings.Contains(n, "--- regl-scatterplot 1.16.0 (MIT)\nMIT License\n\nCopyright (c) 2018 Fritz Lekschas") {
		t.Errorf("the notices lack regl-scatterplot's licence:\n%.600s", n)
	}
}
