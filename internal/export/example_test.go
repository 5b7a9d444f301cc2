package export_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"log"
	"os"
	"strings"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/export"
)

func ExampleWriteNPY() {
	m := mat.NewDense(2, 3, []float64{1, 2, 3, 4, 5, 6})
	var buf bytes.Buffer
	if err := export.WriteNPY(&buf, m); err != nil {
		log.Fatal(err)
	}
	b := buf.Bytes()
	hlen := int(binary.LittleEndian.Uint16(b[8:10]))
	header := string(b[10 : 10+hlen])
	fmt.Printf("magic and version: % x\n", b[:8])
	fmt.Printf("header length: %d\n", hlen)
	fmt.Printf("header: %q + %d spaces + %q\n", strings.TrimRight(header, " \n"), hlen-1-len(strings.TrimRight(header, " \n")), "\n")
	fmt.Printf("data: %d bytes from offset %d\n", len(b)-10-hlen, 10+hlen)
	// Output:
	// magic and version: 93 4e 55 4d 50 59 01 00
	// header length: 118
	// header: "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }" + 58 spaces + "\n"
	// data: 48 bytes from offset 128
}

func ExampleReadNPY() {
	var buf bytes.Buffer
	if err := export.WriteNPY(&buf, mat.NewDense(2, 2, []float64{1, -0.5, 1e-300, 4})); err != nil {
		log.Fatal(err)
	}
	m, err := export.ReadNPY(&buf)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%g\n", mat.Formatted(m))

	_, err = export.ReadNPY(strings.NewReader("not an npy file"))
	fmt.Println(err)
	// Output:
	// ⎡     1    -0.5⎤
	// ⎣1e-300       4⎦
	// export: reading npy: got magic "not an", want "\x93NUMPY"
}

func ExampleWriteMatrixCSV() {
	projection := mat.NewDense(3, 2, []float64{0.8, -0.6, 0.6, 0.8, 0, 0})
	features := []string{"age", "height, cm", `the "x"`}
	err := export.WriteMatrixCSV(os.Stdout, features, export.ComponentNames(2), "name", projection)
	if err != nil {
		log.Fatal(err)
	}
	// Output:
	// name,c1,c2
	// age,0.8,-0.6
	// "height, cm",0.6,0.8
	// "the ""x""",0,0
}
