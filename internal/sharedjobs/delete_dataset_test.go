package sharedjobs

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"mldr/internal/jobs"
)

// datasetStore is the storage of a jobs.Service over the shared queue:
// it records the data sets deleted.
type datasetStore struct {
	jobs.ServiceStore
	deleted []string
}

func (s *datasetStore) DeleteDataset(id string) error {
	s.deleted = append(s.deleted, id)
	return nil
}

// Deleting a data set with its jobs in the shared mode: the jobs' records
// and results go, a study's too, the other data sets' jobs stay, and a
// running job refuses it.
func TestDeleteDatasetWithJobs(t *testing.T) {
	e := newEnv(t)
	web := e.queue(t, nil, nil)
	release := make(chan struct{})
	defer func() {
		select {
		case <-release:
		default:
			close(release)
		}
	}()
	e.queue(t, func(ctx context.Context, j jobs.Job, _ jobs.Report) ([]string, error) {
		if j.Request.Dataset == "busy" {
			<-release
		}
		return nil, nil
	}, nil)
	st := &datasetStore{}
	svc := jobs.NewService(web, st, jobs.Limits{})
	study := jobs.Request{Datasets: []string{"d", "e"}, Methods: []string{"pca"}}
	for n, r := range []jobs.Request{req("d"), study, req("e")} {
		if _, err := web.Submit(id(n+1), r); err != nil {
			t.Fatal(err)
		}
		waitJob(t, web, id(n+1), "succeeded", func(j jobs.Job) bool { return j.Status == jobs.Succeeded })
	}

	err := svc.DeleteDataset("d", false)
	var re *jobs.RequestError
	if want := "2 jobs (1 of them a study) use this data set (the first is " + id(1) + "); delete them first, or delete them with the data set: add ?with_jobs=1"; !errors.As(err, &re) || re.Status != 409 || re.Msg != want {
		t.Errorf("without with_jobs: got %v, want 409 %q", err, want)
	}

	if _, err := web.Submit(id(4), req("busy")); err != nil {
		t.Fatal(err)
	}
	waitJob(t, web, id(4), "running", func(j jobs.Job) bool { return j.Status == jobs.Running })
	err = svc.DeleteDataset("busy", true)
	if !errors.As(err, &re) || re.Status != 409 || !strings.Contains(re.Msg, "job "+id(4)+" is running on this data set") {
		t.Errorf("with a running job: got %v, want 409 naming it", err)
	}

	if err := svc.DeleteDataset("d", true); err != nil {
		t.Fatalf("with_jobs: %v", err)
	}
	for _, gone := range []string{id(1), id(2)} {
		if _, err := web.Get(gone); !errors.Is(err, jobs.ErrNotFound) {
			t.Errorf("job %s of the deleted data set: got %v, want ErrNotFound", gone, err)
		}
		if !slices.Contains(e.res.removed, gone) {
			t.Errorf("job %s: its results were not removed (removed %v)", gone, e.res.removed)
		}
	}
	if _, err := web.Get(id(3)); err != nil {
		t.Errorf("the other data set's job: %v", err)
	}
	if slices.Contains(e.res.removed, id(3)) || slices.Contains(e.res.removed, id(4)) {
		t.Errorf("results removed: got %v, want only %s and %s", e.res.removed, id(1), id(2))
	}
	if !slices.Equal(st.deleted, []string{"d"}) {
		t.Errorf("data sets deleted: got %v, want [d]", st.deleted)
	}
	close(release)
	waitJob(t, web, id(4), "succeeded", func(j jobs.Job) bool { return j.Status == jobs.Succeeded })
}
