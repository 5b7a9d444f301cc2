package handlers_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"mldr/internal/jobs"
)

// TestJobOnBadScale checks that a job on features whose squares overflow
// or underflow float64 fails with a sentence naming the feature and saying
// to rescale, not "rank 0".
func TestJobOnBadScale(t *testing.T) {
	for _, tc := range []struct {
		name, scale, want string
	}{
		{"overflow", "e300", `pca: analysis: feature "Att3" has values up to 9e+300 in magnitude; with 10 rows the sums of their squares overflow float64`},
		{"underflow", "e-300", `pca: analysis: feature "Att3" has no value larger than 9e-300 in magnitude; their squares underflow float64`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newJobServer(t, 1, 0, nil)
			var csv strings.Builder
			csv.WriteString("Att1,Att2,Att3,label:y\n")
			for i := range 10 {
				fmt.Fprintf(&csv, "%d,%d,%d%s,%d\n", i, (i*7)%10, (i*3)%10, tc.scale, i%2)
			}
			resp, body := s.upload("/api/datasets", part{name: "file", file: "scale.csv", body: csv.String()})
			if resp.StatusCode != http.StatusCreated {
				t.Fatalf("upload: got %d %s, want 201", resp.StatusCode, body)
			}
			ds := decode[apiDataset](t, body).ID
			resp, j := s.submit(`{"dataset":"` + ds + `","method":"pca","params":{"d":1}}`)
			if resp.StatusCode != http.StatusAccepted {
				t.Fatalf("submit: got %d %v, want 202", resp.StatusCode, j)
			}
			failed := s.waitJob(j["id"].(string), jobs.Failed)
			if !strings.HasPrefix(failed.Error, tc.want) || !strings.Contains(failed.Error, "rescale the features") || strings.Contains(failed.Error, "rank") {
				t.Errorf("got job error %q, want it to start with %q and say to rescale", failed.Error, tc.want)
			}
		})
	}
}
