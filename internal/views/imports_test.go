package views

import (
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestNoHTTP: the views know no HTTP; the handlers map their errors to
// statuses.
func TestNoHTTP(t *testing.T) {
	files, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !strings.HasSuffix(f.Name(), ".go") || strings.HasSuffix(f.Name(), "_test.go") {
			continue
		}
		ast, err := parser.ParseFile(token.NewFileSet(), f.Name(), nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range ast.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			if path == "net/http" || strings.HasPrefix(path, "github.com/go-chi/") || path == "mldr/internal/handlers" {
				t.Errorf("%s imports %s: got an HTTP dependency, want none", f.Name(), path)
			}
		}
	}
}
