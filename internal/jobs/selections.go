package jobs

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"
	"unicode"

	"mldr/internal/store"
)

// Selection is a named set of a job's rows, kept with the job (the
// explorer's): row numbers as the explorer gives them.
type Selection struct {
	Name      string    `json:"name"`
	Rows      []int     `json:"rows"`
	CreatedAt time.Time `json:"created_at"`
}

// Limits of selections.
const (
	// MaxSelections bounds the selections kept with one job.
	MaxSelections = 100
	// MaxSelectionName bounds a selection's name, in characters.
	MaxSelectionName = 64
)

// SelectionStore keeps selections (store.Store).
type SelectionStore interface {
	SaveSelection(job, name string, data []byte) error
	Selections(job string) (map[string][]byte, error)
	DeleteSelection(job, name string) error
}

// CheckSelectionName refuses (400) a name that is empty, too long, or has
// other than letters, digits, spaces and - _ . ( ).
func CheckSelectionName(name string) error {
	if name == "" || len([]rune(name)) > MaxSelectionName {
		return &RequestError{Status: http.StatusBadRequest, Field: "name", Msg: fmt.Sprintf("a selection's name has 1 to %d characters", MaxSelectionName)}
	}
	for _, r := range name {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != ' ' && r != '-' && r != '_' && r != '.' && r != '(' && r != ')' {
			return &RequestError{Status: http.StatusBadRequest, Field: "name", Msg: fmt.Sprintf("a selection's name has letters, digits, spaces and - _ . ( ) only, not %q", r)}
		}
	}
	return nil
}

// selectionStore is the service's store as a SelectionStore.
func (s *Service) selectionStore() (SelectionStore, error) {
	st, ok := s.store.(SelectionStore)
	if !ok {
		return nil, errors.New("this server keeps no selections")
	}
	return st, nil
}

// succeededJob returns job id if it has succeeded, else a 409.
func (s *Service) succeededJob(id string) (Job, error) {
	j, err := s.Get(id)
	if err != nil {
		return j, err
	}
	if j.Status != Succeeded {
		return j, &RequestError{Status: http.StatusConflict, Msg: fmt.Sprintf("job %s has %s; its rows can be selected once it has succeeded", id, j.Status)}
	}
	return j, nil
}

// SaveSelection keeps a selection with a succeeded job, replacing one of
// the same name; the caller has checked the rows against the job's.
func (s *Service) SaveSelection(id string, sel Selection) error {
	if _, err := s.succeededJob(id); err != nil {
		return err
	}
	if err := CheckSelectionName(sel.Name); err != nil {
		return err
	}
	st, err := s.selectionStore()
	if err != nil {
		return err
	}
	have, err := st.Selections(id)
	if err != nil {
		return err
	}
	if _, replace := have[sel.Name]; !replace && len(have) >= MaxSelections {
		return &RequestError{Status: http.StatusConflict, Field: "name", Msg: fmt.Sprintf("job %s keeps %d selections already, the most there may be; delete one first", id, len(have))}
	}
	b, err := json.Marshal(sel)
	if err != nil {
		return err
	}
	return st.SaveSelection(id, sel.Name, b)
}

// Selections lists a job's selections, by name.
func (s *Service) Selections(id string) ([]Selection, error) {
	if _, err := s.Get(id); err != nil {
		return nil, err
	}
	st, err := s.selectionStore()
	if err != nil {
		return nil, err
	}
	have, err := st.Selections(id)
	if err != nil {
		return nil, err
	}
	out := make([]Selection, 0, len(have))
	for name, b := range have {
		var sel Selection
		if err := json.Unmarshal(b, &sel); err != nil {
			return nil, fmt.Errorf("reading selection %q of job %s: %w", name, id, err)
		}
		out = append(out, sel)
	}
	slices.SortFunc(out, func(a, b Selection) int { return cmp.Compare(a.Name, b.Name) })
	return out, nil
}

// DeleteSelection removes a job's selection; 404 when there is none.
func (s *Service) DeleteSelection(id, name string) error {
	if _, err := s.Get(id); err != nil {
		return err
	}
	st, err := s.selectionStore()
	if err != nil {
		return err
	}
	if err := st.DeleteSelection(id, name); errors.Is(err, store.ErrNotFound) {
		return &RequestError{Status: http.StatusNotFound, Field: "name", Msg: fmt.Sprintf("job %s has no selection %q", id, name)}
	} else if err != nil {
		return err
	}
	return nil
}
