// Command bundle builds the job page's interactive scatter: it bundles the
// ES modules in web/scatter/src (entry main.js) with the npm packages
// installed in web/scatter/node_modules (npm ci --prefix web/scatter) into
// one minified script, web/static/scatter.js, that the server embeds. The
// output starts with a banner naming every bundled package with its
// version and licence and ends with their licence texts; the same sources
// give the same bytes, so CI rebuilds it and fails if the committed file
// differs.
//
// Run it from the repository's root:
//
//	npm ci --prefix web/scatter
//	go run ./cmd/bundle
//
// With -regl-cache it instead regenerates web/scatter/src/regl-cache.js,
// the code regl would otherwise generate with new Function at run time
// (which the pages' Content-Security-Policy forbids): see reglcache.go.
// Rerun it when a package of web/scatter changes.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Args[1:], os.Stdout)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bundle:", err)
		os.Exit(1)
	}
}

// run parses the flags and builds the bundle (or the regl cache) under
// the repository root dir.
func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("bundle", flag.ContinueOnError)
	root := fs.String("root", ".", "the repository's root `directory`")
	cache := fs.Bool("regl-cache", false, "regenerate web/scatter/src/regl-cache.js in headless Chromium instead of bundling")
	chromium := fs.String("chromium", "/usr/bin/chromium", "the Chromium `binary` -regl-cache runs")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q: bundle takes only flags", fs.Args())
	}
	if _, err := os.Stat(*root + "/web/scatter/package.json"); err != nil {
		return fmt.Errorf("no web/scatter/package.json under %s: run it from the repository's root or give -root", *root)
	}
	if _, err := os.Stat(*root + "/web/scatter/node_modules"); errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("web/scatter/node_modules is missing: run npm ci --prefix web/scatter first")
	}
	if *cache {
		return reglCache(ctx, *root, *chromium, out)
	}
	changed, err := bundle(*root)
	if err != nil {
		return err
	}
	if changed {
		fmt.Fprintln(out, "wrote", outFile)
	} else {
		fmt.Fprintln(out, outFile, "is up to date")
	}
	return nil
}
