package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/evanw/esbuild/pkg/api"
)

const (
	// project is the npm project of the scatter, relative to the root.
	project = "web/scatter"
	// entry is the scatter's source entry point, relative to project.
	entry = "src/main.js"
	// outFile is the committed bundle, relative to the root.
	outFile = "web/static/scatter.js"
)

// aliases replace packages in the bundle: regl-scatterplot imports regl,
// whose command compiler calls new Function; plotly's fork of it takes
// the generated code from a table instead (regl-cache.js), so the pages
// run without 'unsafe-eval'.
var aliases = map[string]string{"regl": "@plotly/regl"}

// bundle builds outFile from entry and writes it if it changed.
func bundle(root string) (changed bool, err error) {
	code, pkgs, err := build(root, entry, true)
	if err != nil {
		return false, err
	}
	var b bytes.Buffer
	b.WriteString(banner(pkgs))
	b.Write(code)
	b.WriteString(notices(pkgs))
	path := filepath.Join(root, outFile)
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, b.Bytes()) {
		return false, nil
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return false, fmt.Errorf("writing %s: %w", outFile, err)
	}
	return true, nil
}

// pkg is an npm package whose files went into a bundle.
type pkg struct {
	Name, Version, License string
	// Notice is the package's licence text (its LICENSE file), "" if it
	// ships none.
	Notice string
	// Via names the bundled package whose build holds this one, "" for a
	// package the bundle imports itself.
	Via string
}

// build bundles the entry (relative to project) into one IIFE script and
// says which npm packages it holds, sorted by name and version. esbuild
// runs in the project's directory, where the aliases resolve.
func build(root, entryPoint string, minify bool) ([]byte, []pkg, error) {
	abs, err := filepath.Abs(filepath.Join(root, project))
	if err != nil {
		return nil, nil, err
	}
	res := api.Build(api.BuildOptions{
		AbsWorkingDir:     abs,
		EntryPoints:       []string{entryPoint},
		Bundle:            true,
		Write:             false,
		Outfile:           "scatter.js",
		Format:            api.FormatIIFE,
		Platform:          api.PlatformBrowser,
		Target:            api.ES2020,
		Charset:           api.CharsetUTF8,
		MinifyWhitespace:  minify,
		MinifyIdentifiers: minify,
		MinifySyntax:      minify,
		LegalComments:     api.LegalCommentsEndOfFile, // @license comments of code the packages copied in
		Alias:             aliases,
		Metafile:          true,
		LogLevel:          api.LogLevelSilent,
	})
	if len(res.Errors) > 0 {
		msgs := api.FormatMessages(res.Errors, api.FormatMessagesOptions{Kind: api.ErrorMessage})
		return nil, nil, fmt.Errorf("esbuild failed on %s:\n%s", entryPoint, strings.Join(msgs, ""))
	}
	if len(res.OutputFiles) != 1 {
		return nil, nil, fmt.Errorf("esbuild wrote %d files for %s, want 1", len(res.OutputFiles), entryPoint)
	}
	pkgs, err := packages(abs, res.Metafile)
	if err != nil {
		return nil, nil, err
	}
	return res.OutputFiles[0].Contents, pkgs, nil
}

// packages reads the bundle's metafile and names the npm packages of its
// inputs (node_modules/NAME/… or node_modules/@SCOPE/NAME/…, nested too).
func packages(root, metafile string) ([]pkg, error) {
	var meta struct {
		Inputs map[string]json.RawMessage `json:"inputs"`
	}
	if err := json.Unmarshal([]byte(metafile), &meta); err != nil {
		return nil, fmt.Errorf("reading esbuild's metafile: %w", err)
	}
	dirs := map[string]bool{}
	for in := range meta.Inputs {
		i := strings.LastIndex(in, "node_modules/")
		if i < 0 {
			continue
		}
		parts := strings.Split(in[i+len("node_modules/"):], "/")
		n := 1
		if strings.HasPrefix(parts[0], "@") {
			n = 2
		}
		if len(parts) <= n {
			continue
		}
		dirs[in[:i]+"node_modules/"+strings.Join(parts[:n], "/")] = true
	}
	// A package's own build may hold its dependencies (regl-scatterplot's
	// dist inlines all but pub-sub-es and regl): they are named too, unless
	// the bundle has them itself or an alias replaced them.
	var pkgs []pkg
	seen := map[string]bool{}
	for a := range aliases {
		seen[a] = true
	}
	var walk func(dir, via string) error
	walk = func(dir, via string) error {
		p, deps, err := readPackage(filepath.Join(root, dir))
		if err != nil {
			return err
		}
		if seen[p.Name+"@"+p.Version] {
			return nil
		}
		seen[p.Name+"@"+p.Version] = true
		p.Via = via
		pkgs = append(pkgs, p)
		for _, d := range deps {
			if seen[d] {
				continue
			}
			sub := filepath.Join(dir, "node_modules", d) // nested first, as node resolves
			if _, err := os.Stat(filepath.Join(root, sub)); err != nil {
				sub = filepath.Join(dir[:strings.LastIndex(dir, "node_modules/")], "node_modules", d)
			}
			if err := walk(sub, p.Name); err != nil {
				return err
			}
		}
		return nil
	}
	sorted := make([]string, 0, len(dirs))
	for dir := range dirs {
		sorted = append(sorted, dir)
	}
	sort.Strings(sorted)
	for _, dir := range sorted { // the bundle's own packages first: they are not "via" another
		p, _, err := readPackage(filepath.Join(root, dir))
		if err != nil {
			return nil, err
		}
		seen[p.Name] = true
	}
	for _, dir := range sorted {
		if err := walk(dir, ""); err != nil {
			return nil, err
		}
	}
	sort.Slice(pkgs, func(i, j int) bool {
		if pkgs[i].Name != pkgs[j].Name {
			return pkgs[i].Name < pkgs[j].Name
		}
		return pkgs[i].Version < pkgs[j].Version
	})
	return pkgs, nil
}

// readPackage reads a package's name, version, licence and dependencies
// (sorted) from its package.json, and its LICENSE file.
func readPackage(dir string) (pkg, []string, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return pkg{}, nil, fmt.Errorf("a bundled package without package.json (run npm ci --prefix web/scatter): %w", err)
	}
	var p pkg
	var j struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return pkg{}, nil, fmt.Errorf("%s/package.json: %w", dir, err)
	}
	if err := json.Unmarshal(raw, &j); err != nil {
		return pkg{}, nil, fmt.Errorf("%s/package.json: %w", dir, err)
	}
	if p.Name == "" || p.Version == "" || p.License == "" {
		return pkg{}, nil, fmt.Errorf("%s/package.json names no name, version or licence", dir)
	}
	deps := make([]string, 0, len(j.Dependencies))
	for d := range j.Dependencies {
		deps = append(deps, d)
	}
	sort.Strings(deps)
	for _, name := range []string{"LICENSE", "LICENSE.md", "LICENSE.txt", "LICENCE", "license", "license.md"} {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err == nil {
			p.Notice = strings.TrimSpace(strings.ReplaceAll(string(b), "\r\n", "\n"))
			break
		}
	}
	return p, deps, nil
}

// banner is the comment the bundle starts with: what it is, how it is
// made and what it holds.
func banner(pkgs []pkg) string {
	var b strings.Builder
	b.WriteString("/*! MLDR Explorer: the interactive scatter of the job page. Generated by\n")
	b.WriteString(" * `go run ./cmd/bundle` from web/scatter/src; do not edit. Bundled npm packages:\n")
	for _, p := range pkgs {
		via := ""
		if p.Via != "" {
			via = ", inside " + p.Via + "'s build"
		}
		fmt.Fprintf(&b, " *   %s %s (%s%s)\n", p.Name, p.Version, p.License, via)
	}
	b.WriteString(" * Their licence notices are at the end of this file. */\n")
	return b.String()
}

// notices is the comment the bundle ends with: each package's licence
// text, as its licence asks.
func notices(pkgs []pkg) string {
	var b strings.Builder
	b.WriteString("/*! Licence notices of the bundled packages.\n")
	for _, p := range pkgs {
		fmt.Fprintf(&b, "\n--- %s %s (%s)\n", p.Name, p.Version, p.License)
		if p.Notice == "" {
			b.WriteString("(the package ships no licence file; its package.json says " + p.License + ")\n")
			continue
		}
		b.WriteString(strings.ReplaceAll(p.Notice, "*/", "* /") + "\n")
	}
	b.WriteString("*/\n")
	return b.String()
}
