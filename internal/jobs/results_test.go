package jobs

import (
	"reflect"
	"strings"
	"testing"
)

func TestReadProjected(t *testing.T) {
	const file = "row,split,c1,c2,c3\n1,train,0.5,-1,2e3\n2,test,1,2,3\n3,all,-0,4.25,NaN\n"
	cases := []struct {
		name string
		in   string
		cols []int
		want [][]float64
		err  string
	}{
		{"two components", file, []int{2, 0}, [][]float64{{2000, 0.5}, {3, 1}, {nan(), 0}}, ""},
		{"all components", "row,split,c1\n7,train,1.5\n", nil, [][]float64{{1.5}}, ""},
		{"one component twice", "row,split,c1\n7,train,1.5\n", []int{0, 0}, [][]float64{{1.5, 1.5}}, ""},
		{"no such component", file, []int{3}, nil, "no component 4 of 3"},
		{"bad number", "row,split,c1\n1,train,x\n", nil, nil, "line 2, field 3"},
		{"bad row", "row,split,c1\nA,train,1\n", nil, nil, "line 2, field 1"},
		{"short line", "row,split,c1,c2\n1,train,1\n", nil, nil, "line 2 has 3 fields, want 4"},
		{"empty", "", nil, nil, "unexpected EOF"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := readProjected(strings.NewReader(c.in), c.cols)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("got error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Coords) != len(c.want) {
				t.Fatalf("got %d rows, want %d", len(p.Coords), len(c.want))
			}
			for i, row := range c.want {
				for k, v := range row {
					got := p.Coords[i][k]
					if got != v && !(got != got && v != v) {
						t.Errorf("row %d, column %d: got %v, want %v", i, k, got, v)
					}
				}
			}
		})
	}
	p, _ := readProjected(strings.NewReader(file), []int{0})
	if !reflect.DeepEqual(p.Row, []int{1, 2, 3}) || !reflect.DeepEqual(p.Split, []string{PartTrain, PartTest, PartAll}) {
		t.Errorf("rows %v, splits %v", p.Row, p.Split)
	}
}

func nan() float64 { var z float64; return z / z }
