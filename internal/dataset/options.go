package dataset

import (
	"fmt"
	"strings"
)

// Format is the text format of an input file.
type Format string

const (
	// FormatAuto lets the loader decide from the first lines of the file.
	FormatAuto Format = ""
	// FormatCSV is delimited text with a header line.
	FormatCSV Format = "csv"
	// FormatARFF is Weka's attribute-relation file format, dense or sparse.
	FormatARFF Format = "arff"
	// FormatLibSVM is the libsvm / extreme-classification text format,
	// multi-label: "l1,l2 i:v i:v …" a line (see libsvm.go).
	FormatLibSVM Format = "libsvm"
)

// MissingPolicy says what to do with missing values (empty, ?, NA, NaN).
type MissingPolicy string

const (
	// MissingReject refuses a file with any missing value (the default).
	MissingReject MissingPolicy = "reject"
	// MissingDropRows leaves out every row with a missing value.
	MissingDropRows MissingPolicy = "drop-rows"
	// MissingMean replaces a missing feature value by its column's mean over
	// the rows that have one. Missing labels are still refused.
	MissingMean MissingPolicy = "mean"
)

// NominalPolicy says what to do with feature columns that hold text
// (nominal or string attributes) rather than numbers.
type NominalPolicy string

const (
	// NominalReject refuses such a column, naming it (the default).
	NominalReject NominalPolicy = "reject"
	// NominalDrop leaves such columns out, with a warning.
	NominalDrop NominalPolicy = "drop"
	// NominalOneHot encodes such a column as indicator columns "name=value",
	// one per category; a column of two categories that read as a yes/no pair
	// (yes/no, true/false, y/n, t/f) becomes a single 0/1 column of the same
	// name. Columns with more than MaxOneHotCategories categories are
	// refused: they look like identifiers.
	NominalOneHot NominalPolicy = "onehot"
)

// DefaultLabelPrefix marks label columns in a CSV header when no other way of
// choosing labels is given.
const DefaultLabelPrefix = "label:"

// MaxOneHotCategories is the most categories a column may have to be one-hot
// encoded.
const MaxOneHotCategories = 100

// Options tell the loader how to read a file. The zero value reads CSV or
// ARFF (detected), takes columns named "label:…" as labels, decides the kind
// from the label values and refuses missing values and text features.
//
// Labels are chosen by the first of these that is given: Labels, LabelCount,
// LabelXML, then LabelPrefix (or its default) if any column carries it, then
// (ARFF only) MEKA's "-C n" in @relation.
type Options struct {
	// Format forces a format; FormatAuto detects it.
	Format Format `json:"format,omitempty"`
	// Labels names the label columns.
	Labels []string `json:"labels,omitempty"`
	// LabelPrefix marks label columns by the start of their names; it is
	// stripped from the label names. Empty means DefaultLabelPrefix.
	LabelPrefix string `json:"label_prefix,omitempty"`
	// LabelCount takes MEKA's convention: n > 0 the first n columns, n < 0
	// the last |n|; 0 means not given.
	LabelCount int `json:"label_count,omitempty"`
	// LabelXML names the labels as a Mulan XML label file does (see
	// ParseLabelXML).
	LabelXML []string `json:"label_xml,omitempty"`
	// Kind forces the label kind; "" decides it from the values: MultiLabel
	// when every label column holds a binary pair (0/1, ±1, true/false,
	// yes/no), MultiDim otherwise.
	Kind Kind `json:"kind,omitempty"`
	// Missing is the missing-value policy; "" means MissingReject.
	Missing MissingPolicy `json:"missing,omitempty"`
	// Nominal is the text-feature policy; "" means NominalReject.
	Nominal NominalPolicy `json:"nominal,omitempty"`
	// Drop names columns to leave out (e.g. an identifier).
	Drop []string `json:"drop,omitempty"`

	// only, set by LoadFeatures, reads just these feature columns and no
	// labels.
	only []string
	// chunk, for tests, is the CSV fast path's chunk size: 0 the default,
	// negative not to take the fast path.
	chunk int
	// storage, for tests, forces the features' form; "" chooses it (see
	// chooseSparse).
	storage Storage
	// labelStorage, for tests, forces the multi-label labels' form; ""
	// chooses it (see chooseSparseLabels).
	labelStorage Storage
	// stream, set by LoadStreaming, receives the dense rows as they are
	// parsed.
	stream *BinaryStream
	// memory, set by WithMemory, admits the memory the loading holds.
	memory func(bytes, rows int64) error
}

// WithMemory returns o with admit told, before the loader allocates its
// larger parts and then at least every MiB of input, how many bytes the
// data set being read will hold at its largest, estimated from what has
// been read so far (the columns, the labels, the cells, and the rows the
// rest of the input should hold), and how many rows that is. An error
// from admit ends the loading with that error. It lets a server that
// reads several uploads at once keep them within a budget of memory
// (membudget.Claim's Grow is such a function).
func (o Options) WithMemory(admit func(bytes, rows int64) error) Options {
	o.memory = admit
	return o
}

// WithoutMemory returns o without its admission (WithMemory), for
// comparing the options a file was read with.
func (o Options) WithoutMemory() Options {
	o.memory = nil
	return o
}

// need tells the admission (WithMemory) that the loading will hold bytes
// for rows rows (0: unknown).
func (o Options) need(bytes, rows int64) error {
	if o.memory == nil {
		return nil
	}
	return o.memory(bytes+loadOverhead, rows)
}

// loadOverhead is what a loading holds besides the arrays it grows: the
// read buffer, the fast path's chunks in flight, a row's scratch.
const loadOverhead = 8 << 20

// Validate checks the options on their own, before any file is read.
func (o Options) Validate() error {
	switch o.Format {
	case FormatAuto, FormatCSV, FormatARFF, FormatLibSVM:
	default:
		return optionError("format", "format must be csv, arff or libsvm, not %q", o.Format)
	}
	switch o.Kind {
	case "", MultiLabel, MultiDim:
	default:
		return optionError("kind", "kind must be %q or %q, not %q", MultiLabel, MultiDim, o.Kind)
	}
	switch o.Missing {
	case "", MissingReject, MissingDropRows, MissingMean:
	default:
		return optionError("missing", "missing must be %q, %q or %q, not %q", MissingReject, MissingDropRows, MissingMean, o.Missing)
	}
	switch o.Nominal {
	case "", NominalReject, NominalDrop, NominalOneHot:
	default:
		return optionError("nominal", "nominal must be %q, %q or %q, not %q", NominalReject, NominalDrop, NominalOneHot, o.Nominal)
	}
	var given []string
	if len(o.Labels) > 0 {
		given = append(given, "labels")
	}
	if o.LabelCount != 0 {
		given = append(given, "label_count")
	}
	if len(o.LabelXML) > 0 {
		given = append(given, "xml")
	}
	if len(given) > 1 {
		return optionError(given[1], "give only one way of choosing labels, not %s", strings.Join(given, " and "))
	}
	if err := uniqueNames("labels", o.Labels); err != nil {
		return err
	}
	return uniqueNames("drop", o.Drop)
}

func uniqueNames(field string, names []string) error {
	seen := make(map[string]bool, len(names))
	for _, n := range names {
		if n == "" {
			return optionError(field, "%s holds an empty column name", field)
		}
		if seen[n] {
			return optionError(field, "%s names column %s twice", field, quote(n))
		}
		seen[n] = true
	}
	return nil
}

func (o Options) prefix() string {
	if o.LabelPrefix == "" {
		return DefaultLabelPrefix
	}
	return o.LabelPrefix
}

func (o Options) missing() MissingPolicy {
	if o.Missing == "" {
		return MissingReject
	}
	return o.Missing
}

func (o Options) nominal() NominalPolicy {
	if o.Nominal == "" {
		return NominalReject
	}
	return o.Nominal
}

// ParseList splits a comma-separated list of column names, trimming spaces
// and dropping empty items. It is how forms and the API pass names.
func ParseList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func quoteList(names []string, max int) string {
	var b strings.Builder
	for i, n := range names {
		if i == max {
			fmt.Fprintf(&b, " and %d more", len(names)-max)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(quote(n))
	}
	return b.String()
}
