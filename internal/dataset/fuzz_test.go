package dataset_test

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"mldr/internal/dataset"
)

// Fuzz seeds beyond these live in testdata/fuzz/<FuzzName>/.

// fuzzOptions derives load options from the fuzzer's mode byte, so one
// input is tried under every policy:
//
//	bits 0–1  missing: reject, drop-rows, mean, reject
//	bits 2–3  nominal: reject, drop, onehot, reject
//	bits 4–5  kind: decided, multilabel, multidim, decided
//	bit 6     the reader fails after the input (an I/O error)
//	bit 7     label_count -1 instead of the "label:" prefix
func fuzzOptions(mode byte, format dataset.Format) (opts dataset.Options, failRead bool) {
	opts.Format = format
	opts.Missing = [...]dataset.MissingPolicy{dataset.MissingReject, dataset.MissingDropRows, dataset.MissingMean, ""}[mode&3]
	opts.Nominal = [...]dataset.NominalPolicy{dataset.NominalReject, dataset.NominalDrop, dataset.NominalOneHot, ""}[mode>>2&3]
	opts.Kind = [...]dataset.Kind{"", dataset.MultiLabel, dataset.MultiDim, ""}[mode>>4&3]
	if mode&(1<<7) != 0 {
		opts.LabelCount = -1
	}
	return opts, mode&(1<<6) != 0
}

// fuzzLoad loads data under the options mode selects and checks what Load
// promises: no panic; a data set that passes Validate and survives the
// binary round trip; or an *InputError, or an error wrapping the reader's.
func fuzzLoad(t *testing.T, data []byte, mode byte, format dataset.Format) {
	opts, failRead := fuzzOptions(mode, format)
	var r io.Reader = bytes.NewReader(data)
	if failRead {
		r = io.MultiReader(r, errReader{})
	}
	ds, err := dataset.Load(r, opts)
	if err != nil {
		var ie *dataset.InputError
		switch {
		case errors.As(err, &ie):
			if ie.Msg == "" || ie.Line < 0 {
				t.Fatalf("got an InputError %#v with no message or a negative line", ie)
			}
		case failRead && errors.Is(err, errInjected):
		default:
			t.Fatalf("got error %q of type %T, want an *InputError or the reader's error", err, err)
		}
		return
	}
	if failRead {
		t.Fatalf("got a data set from a reader that failed, want the reader's error")
	}
	if err := ds.Validate(); err != nil {
		t.Fatalf("Validate: got %q, want nil", err)
	}
	if ds.Rows() < 2 || ds.Features.Len() == 0 || ds.Labels.Len() == 0 {
		t.Fatalf("got %d rows, %d features, %d labels; want at least 2, 1, 1", ds.Rows(), ds.Features.Len(), ds.Labels.Len())
	}
	var buf bytes.Buffer
	if err := dataset.WriteBinary(&buf, ds); err != nil {
		t.Fatalf("WriteBinary: got %q, want no error", err)
	}
	back, err := dataset.ReadBinary(&buf, int64(buf.Len()))
	if err != nil {
		t.Fatalf("ReadBinary: got %q, want no error", err)
	}
	if back.IsSparse() != ds.IsSparse() || !sameBits(back.Dense(), ds.Dense()) || !sameBits(back.Y, ds.Y) {
		t.Fatalf("got X and Y from the binary round trip that differ from those written, want the same")
	}
	// Either form, forced, holds the same data: the sparse builder against
	// the dense one.
	if !failRead {
		checkForms(t, data, opts)
	}
}

// checkForms fails t unless data load to the same data set with the
// features forced dense and forced sparse, bit for bit, or to the same
// error; the sparse one must survive the binary round trip.
func checkForms(t *testing.T, data []byte, opts dataset.Options) {
	t.Helper()
	dense, derr := dataset.LoadStored(bytes.NewReader(data), opts, dataset.StorageDense)
	sp, serr := dataset.LoadStored(bytes.NewReader(data), opts, dataset.StorageSparse)
	if derr == nil && dense.IsSparse() {
		t.Fatalf("forced dense: got a sparse data set")
	}
	if serr == nil && !sp.IsSparse() {
		t.Fatalf("forced sparse: got a dense data set")
	}
	if d := diffLoads(sp, serr, dense, derr); d != "" && !strings.HasPrefix(d, "sparse:") {
		t.Fatalf("sparse against dense: %s", d)
	}
	if serr != nil {
		return
	}
	if err := sp.Validate(); err != nil {
		t.Fatalf("Validate (sparse): got %q, want nil", err)
	}
	var buf bytes.Buffer
	if err := dataset.WriteBinary(&buf, sp); err != nil {
		t.Fatalf("WriteBinary (sparse): got %q, want no error", err)
	}
	back, err := dataset.ReadBinary(&buf, int64(buf.Len()))
	if err != nil {
		t.Fatalf("ReadBinary (sparse): got %q, want no error", err)
	}
	if !back.IsSparse() || !sameBits(back.Dense(), dense.X) || !sameBits(back.Y, dense.Y) {
		t.Fatalf("got X and Y from the sparse binary round trip that differ from the dense load, want the same")
	}
}

func FuzzLoadCSV(f *testing.F) {
	for _, s := range []string{
		"a,b,label:y\n1,2,0\n3,4,1\n",
		"a;b;label:y\r\n1;?;yes\r\n3;4;no\r\n",
		"\xEF\xBB\xBF\"a\",\"b \"\"q\"\"\",label:c\n\"1\n2\",x,red\n3,y,blue\n4,x,red\n",
		"id\ta\tlabel:y\tlabel:z\nP1\t1e3\t-1\t1\nP2\tNaN\t1\t-1\nP3\t\t1\t1\n",
		"a,label:y\n1,0\n2\n",
		"a,,label:y\n1,2,0\n",
		"label:y,a\n\"0\"x,1\n",
	} {
		for _, mode := range []byte{0, 0x0a, 0x16, 0x40, 0x80} {
			f.Add([]byte(s), mode)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, mode byte) {
		fuzzLoad(t, data, mode, dataset.FormatCSV)
	})
}

func FuzzLoadARFF(f *testing.F) {
	for _, s := range []string{
		"@relation r\n@attribute a numeric\n@attribute label:y {0,1}\n@data\n1,0\n2,1\n",
		"% c\n@relation 'r: -C 2'\n@attribute p {0,1}\n@attribute q {0,1}\n@attribute 'x y' real\n@data\n0,1,?\n1,0,2\n",
		"@relation r\n@attribute a numeric\n@attribute c {b,'a c'}\n@attribute label:y {1,0}\n@data\n{0 1, 1 'a c'}\n{}\n{2 0}\n",
		"@relation 'm: -C -1'\n@attribute s string\n@attribute a integer\n@attribute l {x,y,z}\n@data\n'q',1,x\nr,2,z\n",
		"@relation r\n@attribute a numeric\n@attribute label:y {0,1}\n@data\n{0 1, 0 2}\n",
		"@relation r\n@attribute a numeric\n@attribute label:y {0,1}\n@data\n{0 1, 1 1}, {3}\n",
	} {
		for _, mode := range []byte{0, 0x0a, 0x16, 0x40, 0x80} {
			f.Add([]byte(s), mode)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, mode byte) {
		fuzzLoad(t, data, mode, dataset.FormatARFF)
	})
}

func FuzzParseLabelXML(f *testing.F) {
	for _, s := range []string{
		`<?xml version="1.0" encoding="utf-8"?><labels xmlns="http://mulan.sourceforge.net/labels"><label name="a"></label></labels>`,
		"<labels>\n<label name=\"p\"><label name=\"p/q\"/></label>\n</labels>",
		"<labels><label name=\"a\"/><label name=\"a\"/></labels>",
		"<labels>\n<label>\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		names, err := dataset.ParseLabelXML(bytes.NewReader(data))
		if err != nil {
			var ie *dataset.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("got error %q of type %T, want an *InputError", err, err)
			}
			if ie.Field != "xml" || ie.Msg == "" {
				t.Fatalf("got %#v, want Field \"xml\" and a message", ie)
			}
			return
		}
		if len(names) == 0 {
			t.Fatalf("got no labels and no error")
		}
		seen := map[string]bool{}
		for _, n := range names {
			if n == "" || seen[n] {
				t.Fatalf("got labels %q, want unique non-empty names", names)
			}
			seen[n] = true
		}
	})
}

// FuzzReadBinary checks that damaged stored data sets are refused with
// ErrCorrupt, never a panic or a huge allocation. Inputs are mostly
// rejected by the checksum, so the seeds carry valid checksums and the
// fuzzer explores the header checks made before it.
func FuzzReadBinary(f *testing.F) {
	valid := `{"rows":2,"features":["a"],"labels":["y"],"kind":"multilabel"}`
	f.Add(craftBinary(valid, []uint64{0, 0x3ff0000000000000, 0x3ff0000000000000, 0}), int64(0))
	f.Add(craftBinary(`{"rows":1,"features":["a"],"labels":["c"],"kind":"multidim","categories":[["x","y"]]}`,
		[]uint64{0, 0x3ff0000000000000}), int64(0))
	f.Add(craftBinary(`{"rows":2305843009213693952,"features":["a"],"labels":[],"kind":"multilabel"}`, nil), int64(0))
	f.Add(craftBinary(valid, nil), int64(-1))
	// Labels held sparse, features dense and sparse; numbered names that
	// declare two billion columns over a few values.
	for _, storage := range []dataset.Storage{dataset.StorageDense, dataset.StorageSparse} {
		ds, err := dataset.LoadStored(strings.NewReader(manyLabelsCSV(60, 3, 3000)), dataset.Options{}, storage)
		if err == nil && ds.YSparse != nil {
			var buf bytes.Buffer
			if dataset.WriteBinary(&buf, ds) == nil {
				f.Add(buf.Bytes(), int64(0))
			}
		}
	}
	f.Add(craftBinary(`{"rows":1,"features":{"prefix":"f","first":1,"count":2000000000},"labels":{"prefix":"l","numbers":[7]},"kind":"multilabel","label_nnz":1}`,
		[]uint64{0, 1, 7, 0x3ff0000000000000}), int64(0))
	f.Fuzz(func(t *testing.T, data []byte, sizeDelta int64) {
		size := int64(len(data)) + sizeDelta%16
		ds, err := dataset.ReadBinary(bytes.NewReader(data), size)
		if err != nil {
			if !errors.Is(err, dataset.ErrCorrupt) {
				t.Fatalf("got %q, want an error wrapping ErrCorrupt", err)
			}
			return
		}
		if size > int64(len(data)) {
			t.Fatalf("got a data set from %d bytes said to be %d, want an error", len(data), size)
		}
		if err := ds.Validate(); err != nil {
			t.Fatalf("Validate: got %q, want nil", err)
		}
	})
}

// FuzzReadDetails checks that damaged details files are refused with
// ErrCorrupt, never a panic or a huge allocation, and that what reads
// back answers every question the views ask of it.
func FuzzReadDetails(f *testing.F) {
	for _, in := range []string{multiLabelCSV, multiDimCSV, "3,77 1:1\n5 2:1\n77 1:3\n", "3 3 1000\n3,77 1:1\n5 2:1\n77 1:3\n"} {
		ds, err := dataset.Load(strings.NewReader(in), dataset.Options{})
		if err != nil {
			f.Fatal(err)
		}
		_, det := dataset.Describe(ds)
		var buf bytes.Buffer
		if err := dataset.WriteDetails(&buf, det); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes(), int64(0))
	}
	f.Fuzz(func(t *testing.T, data []byte, sizeDelta int64) {
		size := int64(len(data)) + sizeDelta%16
		d, err := dataset.ReadDetails(bytes.NewReader(data), size)
		if err != nil {
			if !errors.Is(err, dataset.ErrCorrupt) {
				t.Fatalf("got %q, want an error wrapping ErrCorrupt", err)
			}
			return
		}
		q := d.LabelCount()
		for j := range min(q, 100) {
			d.Stat(j)
		}
		if top := d.Top(20); len(top) != min(20, q) {
			t.Fatalf("Top(20) of %d labels: got %d", q, len(top))
		}
	})
}
