package jobs

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"mldr/internal/analysis"
)

// MethodResult is what a succeeded job's files say of one method.
type MethodResult struct {
	Method   string
	Manifest *Manifest
	Eigen    EigenFile
}

// Results are a succeeded job's results, read back from its files.
type Results struct {
	Job     Job
	Methods []MethodResult
	// Metrics is nil when the job ran no evaluation.
	Metrics *MetricsFile
}

// Results reads a succeeded job's result files.
func (s *Service) Results(id string) (*Results, error) {
	j, err := s.Get(id)
	if err != nil {
		return nil, err
	}
	if j.Status != Succeeded {
		return &Results{Job: j}, nil
	}
	dir := s.store.JobDir(id)
	res := &Results{Job: j}
	for _, m := range j.Request.MethodIDs() {
		mf, err := ReadManifest(filepath.Join(dir, m))
		if err != nil {
			return nil, fmt.Errorf("job %s, %s: %w", id, m, err)
		}
		mr := MethodResult{Method: m, Manifest: mf}
		if err := readJSON(filepath.Join(dir, m, FileEigenvalues), &mr.Eigen); err != nil {
			return nil, fmt.Errorf("job %s, %s: %w", id, m, err)
		}
		res.Methods = append(res.Methods, mr)
	}
	var metrics MetricsFile
	switch err := readJSON(filepath.Join(dir, FileMetrics), &metrics); {
	case err == nil:
		res.Metrics = &metrics
	case !errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("job %s: %w", id, err)
	}
	return res, nil
}

// Projected is projected.csv read back: per row its number in its data set,
// its part (train, test, all) and its coordinates.
type Projected struct {
	Row    []int
	Split  []string
	Coords [][]float64
}

// Projected reads a method's projected rows of a succeeded job.
func (s *Service) Projected(id, method string) (*Projected, error) {
	path, _, err := s.ResultPath(id, method, FileProjected)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading the projected rows: %w", err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.ReuseRecord = true
	if _, err := r.Read(); err != nil {
		return nil, fmt.Errorf("reading the projected rows: %w", err)
	}
	p := &Projected{}
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return p, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading the projected rows: %w", err)
		}
		row, err := strconv.Atoi(rec[0])
		if err != nil {
			return nil, fmt.Errorf("reading the projected rows: %w", err)
		}
		c := make([]float64, len(rec)-2)
		for k, v := range rec[2:] {
			if c[k], err = strconv.ParseFloat(v, 64); err != nil {
				return nil, fmt.Errorf("reading the projected rows: %w", err)
			}
		}
		p.Row, p.Split, p.Coords = append(p.Row, row), append(p.Split, rec[1]), append(p.Coords, c)
	}
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("decoding %s: %w", filepath.Base(path), err)
	}
	return nil
}

// Space tells whether a method result projects features or labels.
func (m MethodResult) Space() analysis.Space { return m.Manifest.Space }
