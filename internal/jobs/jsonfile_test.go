package jobs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"mldr/internal/export"
)

// writeIndented's output decodes to the same value; without arrays of
// scalars it is json.Indent's with two spaces, byte for byte; an array of
// scalars is one line; brackets, braces, colons and commas inside strings
// are left alone; a failing writer's error comes back.
func TestWriteIndented(t *testing.T) {
	type row struct {
		Name  string         `json:"name"`
		Vals  []float64      `json:"vals"`
		Rows  [][]float64    `json:"rows"`
		Inner map[string]any `json:"inner"`
		Empty []int          `json:"empty"`
		None  map[string]int `json:"none"`
	}
	rng := rand.New(rand.NewPCG(15, 7))
	matrix := make([][]float64, 300)
	for i := range matrix {
		matrix[i] = []float64{rng.NormFloat64(), -rng.ExpFloat64() * 1e-300, float64(i)}
	}
	for _, c := range []struct {
		name      string
		v         any
		wantLines int // 0: compare with json.Indent instead
	}{
		{"objects only", map[string]any{"a": 1, "b": map[string]any{"c": "x", "d": true, "e": nil}, "f": map[string]any{}}, 0},
		{"strings with brackets", map[string]any{`k[{"`: `v],}:"\` + "\n", "x": map[string]string{"[": "]"}}, 0},
		{"a scalar", 3.5, 0},
		{"a matrix", matrix, 302},
		{"an array of names", []string{"a,b", `c"]`, "[d]"}, 1},
		{"nested", row{Name: "p[c]a", Vals: []float64{1, 2.5, -3}, Rows: [][]float64{{1, 2}, {3}}, Inner: map[string]any{"l": []any{"x", 1.0, nil, false}, "m": []any{map[string]any{"z": []any{}}}}, Empty: []int{}}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			src, err := json.Marshal(c.v)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := writeIndented(&got, src); err != nil {
				t.Fatal(err)
			}
			if !json.Valid(got.Bytes()) || !bytes.HasSuffix(got.Bytes(), []byte("}\n")) && !bytes.HasSuffix(got.Bytes(), []byte("]\n")) && !bytes.HasSuffix(got.Bytes(), []byte("5\n")) {
				t.Fatalf("got %q, want valid JSON ending with a newline", got.Bytes())
			}
			var back, want any
			json.Unmarshal(got.Bytes(), &back)
			json.Unmarshal(src, &want)
			if !reflect.DeepEqual(back, want) {
				t.Fatalf("decodes to %v, want %v", back, want)
			}
			if c.wantLines > 0 {
				if n := strings.Count(got.String(), "\n"); n != c.wantLines {
					t.Errorf("got %d lines, want %d:\n%.300s", n, c.wantLines, got.String())
				}
				return
			}
			// Without arrays of scalars it is json.Indent's output; with
			// them, json.Indent's once they are folded onto one line.
			var ref bytes.Buffer
			if err := json.Indent(&ref, src, "", "  "); err != nil {
				t.Fatal(err)
			}
			ref.WriteByte('\n')
			if folded := foldScalarArrays(t, ref.String()); got.String() != folded {
				t.Errorf("got\n%s\nwant\n%s", got.String(), folded)
			}
		})
	}
	if err := writeIndented(&failWriter{n: 1}, []byte(`{"a":[1,2]}`)); err == nil {
		t.Error("a failing writer: got no error")
	}
}

// foldScalarArrays folds each array of json.Indent's output that holds
// only scalars onto one line, compact, as writeIndented leaves it.
func foldScalarArrays(t *testing.T, s string) string {
	t.Helper()
	lines := strings.Split(s, "\n")
	var out []string
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if !strings.HasSuffix(line, "[") {
			out = append(out, line)
			continue
		}
		j := i + 1
		var items []string
		for ; j < len(lines); j++ {
			item := strings.TrimSpace(lines[j])
			if strings.HasPrefix(item, "]") {
				break
			}
			if strings.HasSuffix(item, "[") || strings.HasSuffix(item, "{") {
				items = nil
				break
			}
			items = append(items, strings.TrimSuffix(item, ","))
		}
		if items == nil {
			out = append(out, line)
			continue
		}
		out = append(out, line+strings.Join(items, ",")+strings.TrimSpace(lines[j]))
		i = j
	}
	return strings.Join(out, "\n")
}

// BenchmarkWriteJSON writes projection.json of a D × 20 projection as
// json.Encoder with SetIndent did and as writeJSON does:
//
//	go test -run '^$' -bench WriteJSON ./internal/jobs/
func BenchmarkWriteJSON(b *testing.B) {
	for _, size := range []struct {
		name string
		d    int
	}{{"D=500", 500}, {"D=5000", 5000}} {
		rng := rand.New(rand.NewPCG(1, 1))
		v := projectionFile{Columns: []string{"c1"}}
		for i := range size.d {
			v.Rows = append(v.Rows, "f"+strings.Repeat("x", i%7))
			row := make([]float64, 20)
			for k := range row {
				row[k] = rng.NormFloat64()
			}
			v.Matrix = append(v.Matrix, row)
		}
		b.Run(size.name+"/encoder-indent", func(b *testing.B) {
			for b.Loop() {
				enc := json.NewEncoder(io.Discard)
				enc.SetIndent("", "  ")
				if err := enc.Encode(v); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(size.name+"/writeIndented", func(b *testing.B) {
			for b.Loop() {
				src, err := json.Marshal(v)
				if err != nil {
					b.Fatal(err)
				}
				if err := writeIndented(io.Discard, src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestWriteJSONMatrixIsWriteJSON: streaming the matrix a row at a time
// (streamMatrix) writes writeJSON's bytes for the same value with the
// matrix in place: projection.json and model.json-like values, names
// holding quotes, brackets and the key itself, a matrix of 0, 1 and many
// rows (more than one flush of the indenter), and a null key that also
// appears inside a string.
func TestWriteJSONMatrixIsWriteJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	for _, rows := range []int{0, 1, 2, 3000} {
		m := mat.NewDense(max(rows, 1), 4, nil)
		for i := range m.RawMatrix().Data {
			m.RawMatrix().Data[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(40)-20))
		}
		var mm mat.Matrix = m
		if rows == 0 {
			mm = &mat.Dense{}
		}
		names := make([]string, rows)
		for i := range names {
			names[i] = []string{`a"b`, "[c]", `"matrix":null`, "{d}", `e\`}[i%5]
		}
		for _, key := range []string{"matrix", "projection"} {
			t.Run(fmt.Sprintf("%s/rows=%d", key, rows), func(t *testing.T) {
				type file struct {
					Rows   []string    `json:"rows"`
					Matrix [][]float64 `json:"matrix"`
					Note   string      `json:"note"`
				}
				type model struct {
					Method     string      `json:"method"`
					Rows       []string    `json:"rows"`
					Projection [][]float64 `json:"projection"`
					Means      []float64   `json:"means"`
				}
				var without, with any
				if key == "matrix" {
					without, with = file{Rows: names, Note: `"matrix":null`}, file{Rows: names, Matrix: export.Rows(mm), Note: `"matrix":null`}
				} else {
					without, with = model{Method: "pca", Rows: names, Means: []float64{1, 2}}, model{Method: "pca", Rows: names, Projection: export.Rows(mm), Means: []float64{1, 2}}
				}
				want, err := json.Marshal(with)
				if err != nil {
					t.Fatal(err)
				}
				var wantBuf, got bytes.Buffer
				if err := writeIndented(&wantBuf, want); err != nil {
					t.Fatal(err)
				}
				src, err := json.Marshal(without)
				if err != nil {
					t.Fatal(err)
				}
				field := []byte(`"` + key + `":null`)
				at := bytes.LastIndex(src, field) + len(field) - len("null")
				if err := streamMatrix(&got, src, at, mm); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got.Bytes(), wantBuf.Bytes()) {
					t.Errorf("streamed %d bytes differ from writeJSON's %d", got.Len(), wantBuf.Len())
				}
			})
		}
	}
}
