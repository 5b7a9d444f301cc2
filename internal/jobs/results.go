package jobs

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"mldr/internal/analysis"
	"mldr/internal/comparison"
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
	// Comparison is a study's comparison.json; nil for other jobs.
	Comparison *comparison.File
	// LabelResults is true when the job wrote FileLabelResults (an
	// evaluation on multi-label data).
	LabelResults bool
	// Experiment is true when the job wrote FileExperiment (every job
	// since it existed).
	Experiment bool
}

// Results reads a succeeded job's result files, each checked against the
// job's checksums first (see ResultPath for the errors).
func (s *Service) Results(id string) (*Results, error) {
	j, err := s.Get(id)
	if err != nil {
		return nil, err
	}
	if j.Status != Succeeded {
		return &Results{Job: j}, nil
	}
	res := &Results{Job: j}
	if j.Request.Study() {
		path, err := s.resultFile(id, FileComparison)
		if err != nil {
			return nil, err
		}
		c, err := ReadComparison(path)
		if err != nil {
			return nil, fmt.Errorf("job %s: %w", id, err)
		}
		res.Comparison = c
	}
	for _, m := range j.Request.ResultMethods() {
		if _, err := s.resultFile(id, m+"/"+FileModel); err != nil {
			return nil, err
		}
		mf, err := ReadManifest(filepath.Join(s.store.JobDir(id), m))
		if err != nil {
			return nil, fmt.Errorf("job %s, %s: %w", id, m, err)
		}
		mr := MethodResult{Method: m, Manifest: mf}
		eigen, err := s.resultFile(id, m+"/"+FileEigenvalues)
		if err != nil {
			return nil, err
		}
		if err := readJSON(eigen, &mr.Eigen); err != nil {
			return nil, fmt.Errorf("job %s, %s: %w", id, m, err)
		}
		res.Methods = append(res.Methods, mr)
	}
	metricsPath, err := s.resultFile(id, FileMetrics)
	if err != nil {
		return nil, err
	}
	var metrics MetricsFile
	switch err := readJSON(metricsPath, &metrics); {
	case err == nil:
		res.Metrics = &metrics
	case !errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("job %s: %w", id, err)
	}
	if res.Metrics != nil && !j.Request.Study() {
		_, err := os.Stat(filepath.Join(s.store.JobDir(id), FileLabelResults))
		res.LabelResults = err == nil
	}
	_, err = os.Stat(filepath.Join(s.store.JobDir(id), FileExperiment))
	res.Experiment = err == nil
	return res, nil
}

// Projected are a method's projected rows read back: per row its number in its data set,
// its part (train, test, all), with folds the fold it is tested in (0:
// none; Fold is nil without folds) and its coordinates.
type Projected struct {
	Row    []int
	Split  []string
	Fold   []int
	Coords [][]float64
}

// Projected reads a method's projected rows of a succeeded job: of each
// row the components cols (0-based; none: all of them). It reads
// FileProjectedRows, or projected.csv in results written before it
// existed; the file is checked against the job's checksums first (see
// ResultPath).
func (s *Service) Projected(id, method string, cols ...int) (*Projected, error) {
	rel, _, err := s.resultRel(id, method, FileProjected)
	if err != nil {
		return nil, err
	}
	method = path.Dir(rel)
	file, err := s.resultFile(id, method+"/"+FileProjectedRows)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(file)
	if errors.Is(err, os.ErrNotExist) {
		return s.projectedFromCSV(id, method, cols)
	}
	if err != nil {
		return nil, fmt.Errorf("reading the projected rows: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("reading the projected rows: %w", err)
	}
	pf, err := openProjected(f, st.Size())
	if err == nil {
		var p *Projected
		if p, err = pf.read(cols); err == nil {
			return p, nil
		}
	}
	return nil, fmt.Errorf("reading the projected rows of job %s, %s: %w", id, method, err)
}

// projectedFromCSV reads the projected rows from projected.csv, which
// results written before FileProjectedRows hold instead.
func (s *Service) projectedFromCSV(id, method string, cols []int) (*Projected, error) {
	path, err := s.resultFile(id, method+"/"+FileProjected)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading the projected rows: %w", err)
	}
	defer f.Close()
	p, err := readProjected(bufio.NewReaderSize(f, 1<<16), cols)
	if err != nil {
		return nil, fmt.Errorf("reading the projected rows of job %s, %s: %w", id, method, err)
	}
	return p, nil
}

// readProjected parses projected.csv (row, split, the fold with folds, then the components), as
// the executor writes it: no quoted fields. Only the wanted components are
// parsed; a line's bytes are not kept.
func readProjected(in io.Reader, cols []int) (*Projected, error) {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<26)
	if !sc.Scan() {
		return nil, cmp.Or(sc.Err(), io.ErrUnexpectedEOF)
	}
	// row, split, [fold,] c1…cd
	header := strings.Split(sc.Text(), ",")
	lead := slices.Index(header, "c1")
	if lead < 0 {
		return nil, fmt.Errorf("the header names no component c1")
	}
	foldField := slices.Index(header[:lead], "fold")
	d := bytes.Count(sc.Bytes(), []byte{','}) + 1 - lead
	if len(cols) == 0 {
		for k := range d {
			cols = append(cols, k)
		}
	}
	want := make(map[int][]int, len(cols)) // field → places in a row's coordinates
	for k, c := range cols {
		if c < 0 || c >= d {
			return nil, fmt.Errorf("there is no component %d of %d", c+1, d)
		}
		want[c+lead] = append(want[c+lead], k)
	}
	p := &Projected{}
	for line := 2; sc.Scan(); line++ {
		fold := 0
		b := sc.Bytes()
		c := make([]float64, len(cols))
		var row int
		var split string
		fields := 0
		for field := 0; ; field++ {
			end := bytes.IndexByte(b, ',')
			v := b
			if end >= 0 {
				v = b[:end]
			}
			var err error
			switch {
			case field == 0:
				row, err = strconv.Atoi(string(v))
			case field == 1:
				split = splitName(string(v))
			case field == foldField:
				if len(v) > 0 {
					fold, err = strconv.Atoi(string(v))
				}
			default:
				for _, k := range want[field] {
					if c[k], err = strconv.ParseFloat(string(v), 64); err != nil {
						break
					}
				}
			}
			if err != nil {
				return nil, fmt.Errorf("line %d, field %d: %w", line, field+1, err)
			}
			fields++
			if end < 0 {
				break
			}
			b = b[end+1:]
		}
		if fields != d+lead {
			return nil, fmt.Errorf("line %d has %d fields, want %d", line, fields, d+lead)
		}
		p.Row, p.Split, p.Coords = append(p.Row, row), append(p.Split, split), append(p.Coords, c)
		if foldField >= 0 {
			p.Fold = append(p.Fold, fold)
		}
	}
	return p, sc.Err()
}

// splitName returns the part's name without keeping the record's line
// alive.
func splitName(s string) string {
	for _, name := range []string{PartTrain, PartTest, PartAll} {
		if s == name {
			return name
		}
	}
	return strings.Clone(s)
}

// ReadComparison reads a study's comparison.json at path (as ResultPath
// gives it, checked against the job's checksums).
func ReadComparison(path string) (*comparison.File, error) {
	var c comparison.File
	if err := readJSON(path, &c); err != nil {
		return nil, err
	}
	return &c, nil
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
