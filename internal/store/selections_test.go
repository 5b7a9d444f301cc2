package store

import (
	"errors"
	"testing"
)

func TestSelections(t *testing.T) {
	s, err := Open(Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	job, other := NewID(), NewID()
	for _, c := range []struct{ job, name, data string }{{job, "a", `{"rows":[1]}`}, {job, "b c", `{"rows":[2]}`}, {other, "a", `{"rows":[3]}`}} {
		if err := s.SaveSelection(c.job, c.name, []byte(c.data)); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Selections(job)
	if err != nil || len(got) != 2 || string(got["b c"]) != `{"rows":[2]}` {
		t.Fatalf("Selections: got %q, %v", got, err)
	}
	if err := s.DeleteSelection(job, "a"); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteSelection(job, "a"); !errors.Is(err, ErrNotFound) {
		t.Errorf("deleting a selection twice: got %v, want ErrNotFound", err)
	}
	if err := s.SaveJob(job, []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteJob(job); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Selections(job); len(got) != 0 {
		t.Errorf("the deleted job's selections are left: %q", got)
	}
	if got, _ := s.Selections(other); len(got) != 1 {
		t.Errorf("another job's selections: %q", got)
	}
}
