package dataset

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"slices"
)

// The stored form of a data set's Details:
//
//	magic    8 bytes  "MLDRDT\x00\x01"
//	hlen     uint64   length of the header
//	header   hlen bytes of JSON (detailsHeader)
//	nums     int32 × numbers: the label names' numbers, for labels
//	         numbered from a list (NumberedAs)
//	used     int32 × used: the labels that occur, ascending (MultiLabel)
//	count    int32 × used: the rows of each
//	crc      uint32   CRC-32C of everything before it
//
// All numbers are little-endian. The arrays are binary so that a data set
// of a million labels reads its details in milliseconds.
var detailsMagic = []byte("MLDRDT\x00\x01")

// detailsHeader is the JSON header of the stored Details.
type detailsHeader struct {
	Kind         Kind           `json:"kind"`
	Rows         int            `json:"rows"`
	Columns      []string       `json:"columns"`
	LabelColumns []string       `json:"label_columns"`
	Labels       Names          `json:"labels"` // without numbers when Numbers > 0
	Numbers      int            `json:"numbers,omitempty"`
	Prefix       string         `json:"prefix,omitempty"`
	Used         int            `json:"used"`
	Classes      [][]ClassCount `json:"classes,omitempty"`
}

// WriteDetails writes d in its stored form.
func WriteDetails(w io.Writer, d *Details) error {
	if len(d.used) != len(d.count) {
		return fmt.Errorf("dataset: details with %d labels used but %d counts", len(d.used), len(d.count))
	}
	crc := crc32.New(castagnoli)
	bw := bufio.NewWriterSize(io.MultiWriter(w, crc), 1<<16)
	h := detailsHeader{Kind: d.Kind, Rows: d.Rows, Columns: d.Columns, LabelColumns: d.LabelColumns, Labels: d.Labels,
		Used: len(d.used), Classes: d.Classes}
	if h.Columns == nil {
		h.Columns = []string{}
	}
	if h.LabelColumns == nil {
		h.LabelColumns = []string{}
	}
	var nums []int32
	if d.Labels.rule && d.Labels.nums != nil {
		nums = d.Labels.nums
		h.Labels, h.Numbers, h.Prefix = Names{}, len(nums), d.Labels.prefix
	}
	hb, err := json.Marshal(h)
	if err != nil {
		return fmt.Errorf("encoding the data set's details: %w", err)
	}
	bw.Write(detailsMagic)
	bw.Write(binary.LittleEndian.AppendUint64(nil, uint64(len(hb))))
	bw.Write(hb)
	buf := make([]byte, 0, 1<<16)
	put := func(b []byte, v int32) []byte { return binary.LittleEndian.AppendUint32(b, uint32(v)) }
	buf = putWords(bw, buf, nums, 4, put)
	buf = putWords(bw, buf, d.used, 4, put)
	putWords(bw, buf, d.count, 4, put)
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing the data set's details: %w", err)
	}
	if _, err := w.Write(binary.LittleEndian.AppendUint32(nil, crc.Sum32())); err != nil {
		return fmt.Errorf("writing the data set's details: %w", err)
	}
	return nil
}

// ReadDetails reads Details written by WriteDetails from r, which holds
// size bytes. A damaged file gives an error wrapping ErrCorrupt.
func ReadDetails(r io.Reader, size int64) (*Details, error) {
	crc := crc32.New(castagnoli)
	br := bufio.NewReaderSize(r, 1<<16)
	tr := io.TeeReader(br, crc)
	_, hb, err := readHead(tr, size, "a data set's details", detailsMagic)
	if err != nil {
		return nil, err
	}
	hlen := len(hb)
	var h detailsHeader
	if err := json.Unmarshal(hb, &h); err != nil {
		return nil, corrupt("decoding the details' header: %v", err)
	}
	if h.Numbers < 0 || h.Used < 0 || int64(h.Numbers) > size/4 || int64(h.Used) > size/8 ||
		int64(16+hlen)+4*int64(h.Numbers)+8*int64(h.Used)+4 != size {
		return nil, corrupt("the details' header describes %d label numbers and %d labels used, which does not match the file size %d",
			h.Numbers, h.Used, size)
	}
	get := func(b []byte) int32 { return int32(binary.LittleEndian.Uint32(b)) }
	d := &Details{Kind: h.Kind, Rows: h.Rows, Columns: h.Columns, LabelColumns: h.LabelColumns, Labels: h.Labels, Classes: h.Classes}
	if h.Numbers > 0 {
		nums, err := readWords(tr, h.Numbers, 4, get)
		if err != nil {
			return nil, err
		}
		d.Labels = NumberedAs(h.Prefix, nums)
	}
	if d.used, err = readWords(tr, h.Used, 4, get); err != nil {
		return nil, err
	}
	if d.count, err = readWords(tr, h.Used, 4, get); err != nil {
		return nil, err
	}
	if err := readTail(br, crc); err != nil {
		return nil, err
	}
	if err := d.check(); err != nil {
		return nil, corrupt("%v", err)
	}
	return d, nil
}

// check makes the checks of the stored details that their checksum does
// not: the label indices in range and ascending, the kinds' lists.
func (d *Details) check() error {
	q := d.Labels.Len()
	switch d.Kind {
	case MultiLabel:
		if !slices.IsSorted(d.used) {
			return fmt.Errorf("the labels used are not in order")
		}
		for k, j := range d.used {
			if j < 0 || int(j) >= q || (k > 0 && j == d.used[k-1]) || d.count[k] < 0 || int(d.count[k]) > d.Rows {
				return fmt.Errorf("label %d used by %d rows of %d, of %d labels", j, d.count[k], d.Rows, q)
			}
		}
	case MultiDim:
		if len(d.Classes) != q {
			return fmt.Errorf("%d class variables but %d class lists", q, len(d.Classes))
		}
	default:
		return fmt.Errorf("unknown kind %q", d.Kind)
	}
	return nil
}
