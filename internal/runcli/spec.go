package runcli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"mldr/internal/jobs"
	"mldr/internal/jsondup"
)

// Spec is what webapp run runs: the API's job or study request (the body
// of POST /api/jobs) and the data files its data sets come from, by the
// names the request gives them. A job's experiment.json (jobs.Experiment)
// is a spec: its data entries name no files, which --data supplies, and
// carry the SHA-256 each file must have.
type Spec struct {
	// Name names the run: the output folder is NAME-results unless -out
	// says otherwise. Default: the spec file's name without .json.
	Name    string       `json:"name,omitempty"`
	Request jobs.Request `json:"request"`
	// Data are the data sets the request names, by the name (id) it uses:
	// dataset, test_dataset or datasets[i]. A name of the request not
	// here is a data set id of -data-dir.
	Data map[string]Data `json:"data,omitempty"`

	// What experiment.json records besides; read, and shown, not used.
	Format          int               `json:"experiment,omitempty"`
	SoftwareVersion string            `json:"software_version,omitempty"`
	Job             string            `json:"job,omitempty"`
	CreatedAt       *time.Time        `json:"created_at,omitempty"`
	Seeds           map[string]uint64 `json:"seeds,omitempty"`
}

// Data is a data set of a spec: the file and how to read it, as an upload
// (POST /api/datasets) would.
type Data struct {
	// ExperimentData is what experiment.json says of the data set: its
	// display name (default: the spec's name for it), its options (the
	// upload's fields: labels, label_prefix, label_count, label_xml, kind,
	// missing, nominal, drop, format) and, when given, the SHA-256 the
	// file must have.
	jobs.ExperimentData
	// File is the data file (CSV, ARFF or libsvm), relative to the spec's
	// folder.
	File string `json:"file,omitempty"`
	// XML is a Mulan XML label file (with ARFF), FoldsFile predefined
	// folds (fold,split,row), each relative to the spec's folder.
	XML       string `json:"xml,omitempty"`
	FoldsFile string `json:"folds_file,omitempty"`
}

// ReadSpec reads a spec file. A refusal names the file and, for JSON that
// does not read, the line and column.
func ReadSpec(path string) (*Spec, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the spec: %w", err)
	}
	spec, err := parseSpec(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	dir := filepath.Dir(path)
	for name, d := range spec.Data {
		for _, p := range []*string{&d.File, &d.XML, &d.FoldsFile} {
			if *p != "" && !filepath.IsAbs(*p) {
				*p = filepath.Join(dir, *p)
			}
		}
		spec.Data[name] = d
	}
	if spec.Name == "" {
		spec.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	return spec, nil
}

// parseSpec decodes a spec: one JSON object, no key the spec does not
// take, no key twice.
func parseSpec(b []byte) (*Spec, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, errors.New("the spec is empty; it is a JSON object {\"request\": {…the API's job request…}, \"data\": {\"NAME\": {\"file\": \"PATH\"}}}")
	}
	if json.Valid(b) {
		// encoding/json would keep the last of a key given twice.
		if d, ok := jsondup.Find(b); ok {
			how := ""
			if d.First != d.Second {
				how = fmt.Sprintf(", as %q and %q (keys match whatever their case)", d.First, d.Second)
			}
			return nil, fmt.Errorf("%s: the key %q appears twice in the spec%s; give each key once", position(b, int64(d.Offset)), d.Path, how)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var s Spec
	if err := dec.Decode(&s); err != nil {
		return nil, jsonError(b, dec, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%s: the spec holds more than one JSON value; give one object", position(b, dec.InputOffset()))
	}
	if reflectEmpty(s.Request) {
		return nil, errors.New("the spec has no request: give \"request\", the API's job or study request (docs/API.md, POST /api/jobs)")
	}
	return &s, nil
}

// reflectEmpty reports whether a request names neither data nor methods,
// as a spec without "request" decodes.
func reflectEmpty(r jobs.Request) bool {
	return r.Dataset == "" && len(r.Datasets) == 0 && r.Method == "" && len(r.Methods) == 0
}

// jsonError says where and why the spec's JSON does not decode.
func jsonError(b []byte, dec *json.Decoder, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Errorf("%s: the spec is not valid JSON: %v", position(b, se.Offset-1), se) // Offset is just past the character at fault
	case errors.As(err, &te):
		return fmt.Errorf("%s: the field %q must be %v, not %s", position(b, te.Offset), te.Field, te.Type, te.Value)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%s: the spec ends in the middle of its JSON", position(b, int64(len(b))))
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		field := strings.TrimPrefix(err.Error(), "json: unknown field ")
		return fmt.Errorf("%s: unknown field %s; a spec takes name, request and data (and what experiment.json records: experiment, software_version, job, created_at, seeds), "+
			"a data entry file, xml, folds_file, name, options and sha256, the request the fields of POST /api/jobs",
			position(b, dec.InputOffset()), field)
	}
	return fmt.Errorf("%s: %w", position(b, dec.InputOffset()), err)
}

// position is "line L, column C" (both from 1) of the byte at offset off
// in b.
func position(b []byte, off int64) string {
	off = min(max(off, 0), int64(len(b)))
	line := 1 + bytes.Count(b[:off], []byte("\n"))
	col := off - int64(bytes.LastIndexByte(b[:off], '\n'))
	return fmt.Sprintf("line %d, column %d", line, col)
}

// names lists a spec's data names, sorted.
func (s *Spec) names() []string {
	var out []string
	for n := range s.Data {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// dataFor finds the data entry that name (a data name of the spec, or a
// data set's display name) refers to.
func (s *Spec) dataFor(name string) (string, bool) {
	if _, ok := s.Data[name]; ok {
		return name, true
	}
	for _, n := range s.names() {
		if s.Data[n].Name == name {
			return n, true
		}
	}
	return "", false
}
