package handlers_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"mldr/internal/jobs"
)

// wideCSV is a data set of rows rows and features feature columns (and
// two labels): a small file whose D×D matrix is not small.
func wideCSV(rows, features int) string {
	var b strings.Builder
	for j := range features {
		fmt.Fprintf(&b, "f%d,", j+1)
	}
	b.WriteString("label:a,label:b\n")
	for i := range rows {
		for j := range features {
			fmt.Fprintf(&b, "%d,", (i*7+j*3)%10)
		}
		fmt.Fprintf(&b, "%d,%d\n", i%2, (i/2)%2)
	}
	return b.String()
}

// uploadGrid uploads wideCSV(rows, features) and returns its id.
func (s *server) uploadGrid(name string, rows, features int) string {
	s.t.Helper()
	resp, body := s.upload("/api/datasets", part{name: "file", file: name, body: wideCSV(rows, features)})
	if resp.StatusCode != http.StatusCreated {
		s.t.Fatalf("uploading %s: got %d %s, want 201", name, resp.StatusCode, body)
	}
	return decode[apiDataset](s.t, body).ID
}

// A small file with a wide shape must not cost a wide matrix: 6 rows ×
// 60 000 features (1.2 MB) would ask for a 60 000 × 60 000 matrix on the
// D×D path. pca, cplst, lda and mlsi take the N×N path and fit well under
// 1 GiB, so the job is accepted.
func TestWideJobAdmitted(t *testing.T) {
	s := newJobServerLimited(t, 1, 10, nil, jobs.Limits{MaxCells: 1 << 30, MaxJobMemory: 1 << 30})
	wide := s.uploadGrid("wide.csv", 6, 60000)
	resp, body := s.do("POST", "/api/jobs", "application/json", strings.NewReader(`{"dataset":"`+wide+`","methods":["pca","cplst","lda","mlsi"]}`))
	if resp.StatusCode != http.StatusAccepted {
		t.Errorf("got %d %s, want 202", resp.StatusCode, body)
	}
}

// A job whose estimate exceeds -max-job-memory is refused with 413 before
// anything is queued, by the API and by the form; the server goes on.
// kcplst factors the N×N kernel matrix: at 3 000 rows, more than 128 MiB.
func TestJobMemoryRefused(t *testing.T) {
	s := newJobServerLimited(t, 1, 10, nil, jobs.Limits{MaxCells: 1 << 30, MaxJobMemory: 128 << 20})
	wide := s.uploadGrid("pairs.csv", 3000, 4)
	const limit = ", more than the 128 MiB a job may use (the -max-job-memory limit)."

	resp, body := s.do("POST", "/api/jobs", "application/json", strings.NewReader(`{"dataset":"`+wide+`","method":"kcplst"}`))
	e := decode[apiErr](t, body)
	if resp.StatusCode != http.StatusRequestEntityTooLarge || e.Field != "method" ||
		!strings.HasPrefix(e.Error, "kcplst would need about ") || !strings.Contains(e.Error, "(a 3 000 × 3 000 matrix of the rows)") || !strings.Contains(e.Error, limit) {
		t.Errorf("got %d %s %q, want 413 method \"kcplst would need about … (a 3 000 × 3 000 matrix of the rows)%s…\"", resp.StatusCode, e.Field, e.Error, limit)
	}

	form := analysisForm("kcplst")
	form.Set("classifier", "none") // with an evaluation, kcplst fits on the training part, and the evaluation is the culprit
	resp, body = s.postForm("/datasets/"+wide+"/analyze", form)
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("the form: got %d, want 413\n%s", resp.StatusCode, body)
	}
	doc := parseHTML(t, body)
	msg := doc.Find(`[data-testid="form-error"]`).Text()
	if !strings.Contains(msg, "kcplst would need about ") || !strings.Contains(msg, limit) {
		t.Errorf("the form's error: got %q, want the refusal", msg)
	}
	if inv, _ := doc.Find(`fieldset:has(input[name=methods])`).Attr("aria-invalid"); inv != "true" {
		t.Errorf("the methods' fieldset: got aria-invalid %q, want true", inv)
	}

	resp, body = s.do("GET", "/api/jobs", "", nil)
	if resp.StatusCode != http.StatusOK || strings.Contains(string(body), wide) {
		t.Errorf("the jobs after the refusals: got %d %s, want 200 and no job", resp.StatusCode, body)
	}
	if resp, _ := s.do("GET", "/healthz", "", nil); resp.StatusCode != http.StatusOK {
		t.Errorf("/healthz: got %d, want 200", resp.StatusCode)
	}
}

// The analysis form shows a method whose job would exceed -max-job-memory
// disabled, with the reason, and offers it under a limit it fits.
func TestAnalyzeFormMemory(t *testing.T) {
	for _, c := range []struct {
		name     string
		limit    int64
		disabled bool
	}{{"128 MiB", 128 << 20, true}, {"1 PiB", 1 << 50, false}, {"no limit", 0, false}} {
		t.Run(c.name, func(t *testing.T) {
			s := newJobServerLimited(t, 1, 10, nil, jobs.Limits{MaxCells: 1 << 30, MaxJobMemory: c.limit})
			id := s.uploadGrid("pairs.csv", 3000, 4)
			form := s.page("/datasets/" + id + "/analyze").Find(`form[data-testid="analyze-form"]`)
			in := form.Find(`input[value=kcplst]`)
			_, dis := in.Attr("disabled")
			why := in.Parent().Find(".hint").Last().Text()
			want := c.disabled && strings.HasPrefix(why, "Needs about ") && strings.HasSuffix(why, "; a job may use at most 128 MiB.")
			if dis != c.disabled || (c.disabled && !want) {
				t.Errorf("kcplst: got disabled %v, hint %q; want disabled %v (with \"Needs about … a job may use at most 128 MiB.\")", dis, why, c.disabled)
			}
			if _, dis := form.Find(`input[value=pca]`).Attr("disabled"); dis {
				t.Errorf("pca: got disabled, want enabled (it fits)")
			}
		})
	}
}
