package handlers_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"mldr/internal/handlers"
	"mldr/internal/membudget"
	"mldr/internal/store"
)

// newBudgetServer is newServer with the readings of uploads, relabellings
// and transforms sharing budget.
func newBudgetServer(t *testing.T, budget *membudget.Budget) *server {
	t.Helper()
	dir := t.TempDir()
	st, err := store.Open(store.Config{Dir: dir, Memory: budget})
	if err != nil {
		t.Fatalf("opening the store: %v", err)
	}
	s := &server{t: t, dir: dir, store: st, max: 1 << 30}
	s.http = httptest.NewServer(handlers.New(handlers.Config{Store: st, Memory: budget, MaxUpload: 1 << 30, Version: "test"}))
	t.Cleanup(s.close)
	return s
}

// denseCSV is a CSV of rows × 50 numeric features and two labels: 416
// bytes a row once read (X and Y).
func denseCSV(rows int) string {
	var b strings.Builder
	for j := range 50 {
		fmt.Fprintf(&b, "f%d,", j)
	}
	b.WriteString("label:a,label:b\n")
	for i := range rows {
		for j := range 50 {
			fmt.Fprintf(&b, "%d.%d,", i%97, j)
		}
		fmt.Fprintf(&b, "%d,%d\n", i%2, i%3/2)
	}
	return b.String()
}

// TestUploadMemoryBudget: an upload the memory budget cannot take alone
// gets 413 with a sentence saying what it needs, the budget and what
// would fit; one that fits alone but not beside the uploads being read
// gets 429 with Retry-After; either stores nothing and leaves the budget
// as it was; and one that fits is stored.
func TestUploadMemoryBudget(t *testing.T) {
	budget := membudget.New(40 << 20)
	s := newBudgetServer(t, budget)
	big := denseCSV(120_000) // X is 48 MB: more than the 40 MiB budget
	resp, body := s.upload("/api/datasets", part{name: "file", file: "big.csv", body: big})
	e := decode[apiErr](t, body)
	if resp.StatusCode != http.StatusRequestEntityTooLarge || e.Field != "file" ||
		!strings.Contains(e.Error, "would need about") || !strings.Contains(e.Error, "40.0 MiB") ||
		!strings.Contains(e.Error, "-max-upload-memory") || !strings.Contains(e.Error, "rows like these would fit") {
		t.Errorf("a file too large for the budget: got %d %s, want 413 saying what it needs and what would fit", resp.StatusCode, body)
	}
	// The budget is held by an upload being read: a file that fits
	// alone waits its turn.
	held := budget.Claim("another upload")
	if err := held.Grow(30<<20, 0); err != nil {
		t.Fatal(err)
	}
	mid := denseCSV(12_000) // about 4.8 MB of X, and the loading's 8 MiB
	resp, body = s.upload("/api/datasets", part{name: "file", file: "mid.csv", body: mid})
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" ||
		!strings.Contains(decode[apiErr](t, body).Error, "try again") {
		t.Errorf("a file that fits alone, budget held: got %d %s (Retry-After %q), want 429 with Retry-After", resp.StatusCode, body, resp.Header.Get("Retry-After"))
	}
	held.Release()
	if entries, _ := os.ReadDir(s.dir + "/datasets"); len(entries) != 0 {
		t.Errorf("refused uploads left %d data set directories", len(entries))
	}
	if used := budget.Used(); used != 0 {
		t.Errorf("after the refusals the budget holds %d bytes, want 0", used)
	}
	resp, body = s.upload("/api/datasets", part{name: "file", file: "mid.csv", body: mid})
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("the same file, budget free: got %d %s, want 201", resp.StatusCode, body)
	}
	if used := budget.Used(); used != 0 {
		t.Errorf("after the upload the budget holds %d bytes, want 0", used)
	}
	// The page's form says it too.
	resp, page := s.upload("/datasets", part{name: "file", file: "big.csv", body: big})
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(page), "would need about") {
		t.Errorf("the upload form: got %d, want 413 with the sentence on the page", resp.StatusCode)
	}
}
