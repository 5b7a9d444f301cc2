package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"strconv"
)

// npyElem are the element types of the one-dimensional .npy files that
// hold a CSR matrix's arrays: int64 row pointers, int32 column indices and
// float64 values (scipy.sparse.csr_matrix takes them as they load).
type npyElem interface{ int64 | int32 | float64 }

// npyDescr is numpy's dtype string for T.
func npyDescr[T npyElem]() (descr string, size int) {
	var z T
	switch any(z).(type) {
	case int64:
		return "<i8", 8
	case int32:
		return "<i4", 4
	}
	return "<f8", 8
}

// npyVectorHeader is the NPY 1.0 preamble and header of a one-dimensional
// array of n elements of descr, padded with spaces to a multiple of 64
// bytes and ended by a newline, as numpy writes it.
func npyVectorHeader(descr string, n int) []byte {
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%d,), }", descr, n)
	total := 10 + len(dict) + 1
	pad := (64 - total%64) % 64
	h := make([]byte, 0, total+pad)
	h = append(h, "\x93NUMPY\x01\x00"...)
	h = binary.LittleEndian.AppendUint16(h, uint16(len(dict)+pad+1))
	h = append(h, dict...)
	h = append(h, bytes.Repeat([]byte{' '}, pad)...)
	return append(h, '\n')
}

// writeVectorNPY writes v to path as a one-dimensional .npy file (NPY 1.0,
// little-endian, the dtype of T), through a temporary file in the same
// directory renamed into place.
func writeVectorNPY[T npyElem](path string, v []T) error {
	descr, _ := npyDescr[T]()
	return writeFileAtomic(path, func(w *bufio.Writer) error {
		if _, err := w.Write(npyVectorHeader(descr, len(v))); err != nil {
			return err
		}
		return binary.Write(w, binary.LittleEndian, v)
	})
}

// npyVectorShape matches the header of a one-dimensional C-order array.
var npyVectorShape = regexp.MustCompile(`^\{'descr': '([<>|][a-z][0-9]+)', 'fortran_order': False, 'shape': \(([0-9]+),\), \} *\n$`)

// readVectorNPY reads a one-dimensional .npy file of T's dtype, in the
// form writeVectorNPY writes (and numpy, for such an array). It returns an
// error naming the file for another version, dtype or shape, and for a
// file whose size is not the header's.
func readVectorNPY[T npyElem](path string) ([]T, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("loading data: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("loading data: %w", err)
	}
	r := bufio.NewReaderSize(f, 1<<20)
	var pre [10]byte
	if _, err := io.ReadFull(r, pre[:]); err != nil {
		return nil, fmt.Errorf("loading %s: reading the npy preamble: %w", path, err)
	}
	if string(pre[:8]) != "\x93NUMPY\x01\x00" {
		return nil, fmt.Errorf("loading %s: not an NPY 1.0 file (it starts %q)", path, pre[:8])
	}
	hlen := int(binary.LittleEndian.Uint16(pre[8:]))
	header := make([]byte, hlen)
	if _, err := io.ReadFull(r, header); err != nil {
		return nil, fmt.Errorf("loading %s: reading the npy header: %w", path, err)
	}
	m := npyVectorShape.FindSubmatch(header)
	descr, size := npyDescr[T]()
	if m == nil || string(m[1]) != descr {
		return nil, fmt.Errorf("loading %s: header %q, want a one-dimensional array of %s", path, bytes.TrimSpace(header), descr)
	}
	n, err := strconv.Atoi(string(m[2]))
	if err != nil {
		return nil, fmt.Errorf("loading %s: shape %s: %w", path, m[2], err)
	}
	if want := int64(10+hlen) + int64(n)*int64(size); st.Size() != want {
		return nil, fmt.Errorf("loading %s: %d bytes, want %d for %d values of %s", path, st.Size(), want, n, descr)
	}
	v := make([]T, n)
	if err := binary.Read(r, binary.LittleEndian, v); err != nil {
		return nil, fmt.Errorf("loading %s: %w", path, err)
	}
	return v, nil
}

// vectorCached reports whether path holds a one-dimensional .npy file of
// n elements of size bytes: it is there and has the size of one (a header
// of a multiple of 64 bytes, at most 4 KiB).
func vectorCached(path string, n, size int) (bool, error) {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("looking for cached data: %w", err)
	}
	header := st.Size() - int64(size)*int64(n)
	return header > 0 && header <= 4096 && header%64 == 0, nil
}
