//go:build !testhooks

package main

import "mldr/internal/worker"

// testHooks returns run: only test builds (-tags testhooks) have hooks.
func testHooks(run worker.Run, _ func(string) string) worker.Run { return run }
