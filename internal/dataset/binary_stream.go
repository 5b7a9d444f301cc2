package dataset

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"math"
)

// StreamFile is where a BinaryStream writes: a new, empty file, written
// in order from where it stands (X), and at its start (the header) last.
type StreamFile interface {
	io.Writer
	io.WriterAt
	io.Seeker
}

// BinaryStream writes the binary form of a dense data set (WriteBinary's)
// while the data set is loaded (LoadStreaming): the rows of X go to the
// file as the loader fixes them, from a goroutine of the stream's own, so
// that the disk works while the rest of the input is parsed; once the data
// set is complete, Finish writes its header in the room kept for it before
// X, then Y and the checksum. The file is then what WriteBinary would have
// written, except that the header is padded with more spaces (so X starts
// at a multiple of 4096 bytes).
//
// The rows only make the file when the data set ends up with exactly them
// as X: dense features, every row streamed, none changed afterwards (a
// missing value replaced by its column's mean, a text column encoded or
// dropped, sparse storage chosen at the end). Otherwise Finish reports
// that the file cannot be used, and the caller writes the data set the
// usual way.
type BinaryStream struct {
	f StreamFile
	// written, if not nil, is called after each write of rows with the
	// offset and length written (e.g. to start the writeback of them).
	written func(off, n int64)

	reserve int64          // bytes before X: magic, length, header, padding
	work    chan []float64 // rows to write, in order
	done    chan struct{}  // the writer goroutine has ended
	crc     uint32         // of the X written so far
	off     int64          // where the next rows go
	err     error          // the first write error (the writer's, until done)
	started bool
	usable  bool // set by the loader: the streamed rows are the data set's X
	values  int  // values handed to the writer
}

// streamBatch is how many values the loader gathers before it hands them
// to the writer: 1 MiB of rows.
const streamBatch = 1 << 17

// NewBinaryStream returns a stream into f, a new, empty file. written may
// be nil.
func NewBinaryStream(f StreamFile, written func(off, n int64)) *BinaryStream {
	return &BinaryStream{f: f, written: written}
}

// start positions the file after reserve bytes (a multiple of 8) and
// starts the writer. It is called before the first rows.
func (s *BinaryStream) start(reserve int64) {
	s.started, s.reserve, s.off = true, reserve, reserve
	s.work, s.done = make(chan []float64, 16), make(chan struct{})
	if _, err := s.f.Seek(reserve, io.SeekStart); err != nil {
		s.err = fmt.Errorf("writing the data set: %w", err)
	}
	go s.run()
}

// run writes the rows handed to it, in order, until work is closed; after
// an error it takes the rest without writing.
func (s *BinaryStream) run() {
	defer close(s.done)
	for rows := range s.work {
		if s.err != nil {
			continue
		}
		b := floatBytes(rows)
		if !littleEndian {
			b = make([]byte, 8*len(rows))
			for i, v := range rows {
				binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(v))
			}
		}
		if _, err := s.f.Write(b); err != nil {
			s.err = fmt.Errorf("writing the data set: %w", err)
			continue
		}
		s.crc = crc32.Update(s.crc, castagnoli, b)
		if s.written != nil {
			s.written(s.off, int64(len(b)))
		}
		s.off += int64(len(b))
	}
}

// rows hands rows (whole rows of X, the next ones) to the writer. The
// loader must not change them until wait has returned.
func (s *BinaryStream) rows(rows []float64) {
	s.values += len(rows)
	s.work <- rows
}

// wait returns once every row handed over is written (or failed).
func (s *BinaryStream) wait() {
	if s.started && s.work != nil {
		close(s.work)
		<-s.done
		s.work = nil
	}
}

// Finish completes the file for ds, the data set LoadStreaming returned
// with this stream (named as it is to be stored). ok is false, with a nil
// error, when the streamed rows cannot make the file (see BinaryStream) or
// its header does not fit the room kept for it; then the file holds
// nothing of use. An error is a failed write, or a data set Validate
// refuses. The caller syncs and closes the file.
func (s *BinaryStream) Finish(ds *Dataset) (ok bool, err error) {
	s.wait()
	if s.err != nil {
		return false, s.err
	}
	if !s.usable || ds.X == nil || ds.Sparse != nil {
		return false, nil
	}
	r, c := ds.X.Dims()
	if s.values != r*c || ds.X.RawMatrix().Stride != c {
		return false, nil // not a row of X missed, or one too many
	}
	// The rows written are X's to the bit: the loader's conditions above
	// say so, and the checksum makes sure. One pass (onePass, on every
	// core) sums X and makes Validate's check of its values.
	xs := ds.X.RawMatrix().Data[:r*c]
	crc, err := onePass(floatBytes(xs), littleEndian, func(lo, hi int) error {
		return checkFinite(xs[lo/8 : hi/8])
	})
	if err != nil {
		return false, err
	}
	if littleEndian && crc != s.crc {
		return false, nil
	}
	if err := ds.validate(false); err != nil {
		return false, err
	}
	h, err := denseHeader(ds)
	if err != nil {
		return false, err
	}
	room := int(s.reserve) - len(binaryMagic) - 8
	if len(h) > room {
		return false, nil
	}
	head := make([]byte, 0, s.reserve)
	head = append(head, binaryMagic...)
	head = binary.LittleEndian.AppendUint64(head, uint64(room))
	head = append(head, h...)
	for len(head) < int(s.reserve) {
		head = append(head, ' ')
	}
	if _, err := s.f.WriteAt(head, 0); err != nil {
		return false, fmt.Errorf("writing the data set: %w", err)
	}
	crc = crc32Combine(crc32.Checksum(head, castagnoli), s.crc, s.off-s.reserve)
	tail := crc32.New(castagnoli)
	yw := &sumWriter{w: s.f, sum: tail}
	bw := bufio.NewWriterSize(yw, 1<<16)
	writeLabels(bw, ds)
	if err := bw.Flush(); err != nil {
		return false, fmt.Errorf("writing the data set: %w", err)
	}
	crc = crc32Combine(crc, tail.Sum32(), yw.n)
	if _, err := s.f.Write(binary.LittleEndian.AppendUint32(nil, crc)); err != nil {
		return false, fmt.Errorf("writing the data set: %w", err)
	}
	return true, nil
}

// sumWriter writes to w and to sum, counting the bytes.
type sumWriter struct {
	w   io.Writer
	sum io.Writer
	n   int64
}

func (s *sumWriter) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	s.sum.Write(p[:n])
	s.n += int64(n)
	return n, err
}

// LoadStreaming is Load, handing the rows of a dense X to s as they are
// parsed (see BinaryStream). Whether or not it succeeds, s has written
// everything it was handed when it returns; then s.Finish(ds) completes
// the file, or says it cannot.
func LoadStreaming(r io.Reader, opts Options, s *BinaryStream) (*Dataset, error) {
	defer s.wait() // even should the loading panic
	opts.stream = s
	return Load(r, opts)
}

// streamReserve is the room kept before X for the magic, the header's
// length and the header itself: room for every column's name as JSON
// writes it, twice (as a feature or label, and as a column), and 64 KiB
// for the rest (name, kind, categories, warnings), rounded up to 4096
// bytes. A header that turns out larger makes the stream unusable, not
// wrong; the room is what the header takes, give or take 64 KiB, so that a
// file with long names does not get a padding larger than its header.
func streamReserve(cols []column) int64 {
	n := int64(64 << 10)
	for _, c := range cols {
		q, _ := json.Marshal(c.name) // a string always encodes
		n += 2 * int64(len(q)+1)
	}
	return (n + 4095) / 4096 * 4096
}

// streamRows hands the rows committed since the last call to the stream,
// once there are streamBatch values of them, or all of them when final.
// Only dense rows, once the storage is decided, are streamed: rows the
// builder holds sparse are not, and the stream is then unusable unless
// every row is streamed later (densify keeps the rows in order).
func (b *builder) streamRows(final bool) {
	s := b.stream
	if s == nil || !b.decided || b.sp != nil {
		return
	}
	end := b.rows * b.width
	if end == b.streamed || !final && end-b.streamed < streamBatch {
		return
	}
	if !s.started {
		s.start(streamReserve(b.cols))
	}
	s.rows(b.raw[b.streamed:end:end])
	b.streamed = end
}

// endStream, at the start of finish, hands the stream the last rows and
// waits until it has written them all, before finish may change them.
func (b *builder) endStream() {
	if b.stream == nil {
		return
	}
	b.streamRows(true)
	b.stream.wait()
}

// settleStream, at the end of a successful finish, tells the stream
// whether the rows it wrote are ds.X: dense, every row, none changed since
// (no mean imputation in place, and X the raw rows as they are).
func (b *builder) settleStream(ds *Dataset) {
	if b.stream == nil {
		return
	}
	b.stream.usable = ds.X != nil && ds.Sparse == nil && b.xIsRaw && b.imputed == 0 &&
		b.streamed == ds.Rows()*ds.Features.Len()
}
