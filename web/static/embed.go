// Package static holds the stylesheet and scripts the pages load, embedded
// in the binary so that no request leaves the machine.
package static

import "embed"

// FS holds the static files, served under /static/.
//
//go:embed *.css *.js
var FS embed.FS
