package handlers_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"mldr/internal/jobs"
	"mldr/internal/store/faultfs"
)

// TestErrorsHideDataDir checks that a failed job's error, in the API's
// JSON and on the job's page, names stored files relative to the data
// directory, never by its absolute path.
func TestErrorsHideDataDir(t *testing.T) {
	for _, tc := range []struct {
		name   string
		break_ func(t *testing.T, s *server, ffs *faultfs.FS, ds string)
		want   string
	}{
		{"data file missing", func(t *testing.T, s *server, _ *faultfs.FS, ds string) {
			files, err := filepath.Glob(filepath.Join(s.dir, "datasets", ds, "data-*.bin"))
			if err != nil || len(files) != 1 {
				t.Fatalf("got data files %q (%v), want one", files, err)
			}
			if err := os.Remove(files[0]); err != nil {
				t.Fatal(err)
			}
		}, "the stored data of data set "},
		{"disk full", func(_ *testing.T, _ *server, ffs *faultfs.FS, _ string) {
			ffs.FailFrom(faultfs.Write, 1, syscall.ENOSPC)
		}, "the disk of the data directory is full"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, ffs := newFaultyServer(t)
			ds := s.demo("multilabel")
			tc.break_(t, s, ffs, ds)
			resp, j := s.submit(`{"dataset": "` + ds + `", "methods": ["pca"], "params": {"d": 2}}`)
			if resp.StatusCode != http.StatusAccepted {
				t.Fatalf("submit: got %d %v, want 202", resp.StatusCode, j)
			}
			id := j["id"].(string)
			failed := s.waitJob(id, jobs.Failed)
			ffs.Heal()
			if !strings.Contains(failed.Error, tc.want) {
				t.Errorf("got job error %q, want it to contain %q", failed.Error, tc.want)
			}
			for _, path := range []string{"/api/jobs/" + id, "/jobs/" + id} {
				resp, body := s.do("GET", path, "", nil)
				if resp.StatusCode != http.StatusOK {
					t.Fatalf("GET %s: got %d, want 200", path, resp.StatusCode)
				}
				if strings.Contains(string(body), s.dir) {
					t.Errorf("GET %s shows the data directory %s: %s", path, s.dir, failed.Error)
				}
			}
		})
	}
}
