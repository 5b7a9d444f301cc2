package jobs

import (
	"bytes"
	"slices"
	"testing"
)

func TestReadRunLabels(t *testing.T) {
	header := `{"version":1,"kind":"multidim","labels":["a","b"],"categories":[["x","y"],["p","q","r"]],"gen":3,"train_rows":2,"test_rows":1,"width":2}` + "\n"
	body := []byte{1, 0, 2, 0, 0, 0, 1, 0, 1, 0, 0, 1} // (1,2) (0,1) | (1,256)
	l, err := ReadRunLabels(bytes.NewReader(append([]byte(header), body...)))
	if err != nil {
		t.Fatal(err)
	}
	if l.Gen != 3 || l.TrainRows != 2 || l.TestRows != 1 || !slices.Equal(l.Labels, []string{"a", "b"}) {
		t.Errorf("got %+v", l)
	}
	for _, c := range []struct {
		test bool
		i    int
		want []float64
	}{{false, 0, []float64{1, 2}}, {false, 1, []float64{0, 1}}, {true, 0, []float64{1, 256}}, {false, 2, nil}, {true, 1, nil}, {false, -1, nil}} {
		if got := l.Row(c.test, c.i); !slices.Equal(got, c.want) {
			t.Errorf("Row(%v, %d): got %v, want %v", c.test, c.i, got, c.want)
		}
	}
	for name, b := range map[string][]byte{
		"short":       append([]byte(header), body[:11]...),
		"long":        append(append([]byte(header), body...), 0),
		"bad width":   []byte(`{"version":1,"labels":["a"],"train_rows":1,"width":3}` + "\n\x01\x00\x00"),
		"bad version": []byte(`{"version":2,"labels":["a"],"train_rows":1,"width":1}` + "\n\x01"),
		"no header":   []byte(`{"version":1`),
	} {
		if _, err := ReadRunLabels(bytes.NewReader(b)); err == nil {
			t.Errorf("%s: got no error", name)
		}
	}
}
