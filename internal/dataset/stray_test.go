package dataset_test

import (
	"fmt"
	"strings"
	"testing"

	"mldr/internal/dataset"
)

// strayCSV writes rows rows of a feature, a 0/1 label l1 and a label l3
// that is 0/1 except for the values at the given rows (from 0; row i is on
// line i+2). With classes, l2 is a genuine class variable of five classes.
func strayCSV(rows int, stray map[int]string, classes bool) string {
	return codedCSV(rows, stray, classes, [2]string{"0", "1"})
}

// codedCSV is strayCSV with l3 in the binary code given.
func codedCSV(rows int, stray map[int]string, classes bool, code [2]string) string {
	var b strings.Builder
	b.WriteString("a,label:l1")
	if classes {
		b.WriteString(",label:l2")
	}
	b.WriteString(",label:l3\n")
	for i := range rows {
		fmt.Fprintf(&b, "%d.5,%d", i, i%2)
		if classes {
			fmt.Fprintf(&b, ",%d", i%5)
		}
		v, ok := stray[i]
		if !ok {
			v = code[(i/3)%2]
		}
		fmt.Fprintf(&b, ",%s\n", v)
	}
	return b.String()
}

// strayARFF is strayCSV's data as ARFF, dense or sparse, l3 declared with
// every value it holds.
func strayARFF(rows int, stray map[int]string, sparse bool) string {
	var b strings.Builder
	values := []string{"0", "1"}
	for _, v := range stray {
		if !strings.Contains(strings.Join(values, ","), v) {
			values = append(values, v)
		}
	}
	fmt.Fprintf(&b, "@relation stray\n@attribute a numeric\n@attribute l1 {0,1}\n@attribute l3 {%s}\n@data\n", strings.Join(values, ","))
	for i := range rows {
		v, ok := stray[i]
		if !ok {
			v = fmt.Sprint((i / 3) % 2)
		}
		if sparse {
			fmt.Fprintf(&b, "{0 %d.5, 1 %d, 2 %s}\n", i, i%2, v)
		} else {
			fmt.Fprintf(&b, "%d.5,%d,%s\n", i, i%2, v)
		}
	}
	return b.String()
}

// TestStrayLabelValueWarning: a label column that is binary except for a
// few cells makes the data multi-dimensional, as before, and a warning
// names the column, the values, their lines and cells. Past the threshold
// (more than 3 cells and 1 % of the column or more, more than 3 distinct
// values, or under 90 % of the cells in the code) no such warning: those
// are class variables.
func TestStrayLabelValueWarning(t *testing.T) {
	const tail = ", so the data set is read as multi-dimensional; if that value is a typo, fix it and upload again (or choose kind=multidim to keep the classes as they are)."
	rowsOf := func(vals map[int]string, rows ...int) map[int]string {
		for _, r := range rows {
			vals[r] = "2"
		}
		return vals
	}
	arffOpts := dataset.Options{Labels: []string{"l1", "l3"}}
	for _, c := range []struct {
		name string
		data string
		opts dataset.Options
		want string // the warning; "" for none about stray values
	}{
		{"one 2 in 100 rows", strayCSV(100, rowsOf(map[int]string{}, 55), false), dataset.Options{},
			`Label column "label:l3" is 0/1 except for the value 2 on line 57 (1 cell)` + tail},
		{"three 2s in 100 rows", strayCSV(100, rowsOf(map[int]string{}, 10, 40, 70), false), dataset.Options{},
			`Label column "label:l3" is 0/1 except for the value 2 (3 cells, the first on line 12)` + tail},
		{"four 2s in 100 rows: 4 %", strayCSV(100, rowsOf(map[int]string{}, 10, 40, 70, 90), false), dataset.Options{}, ""},
		{"nine 2s in 1000 rows: 0.9 %", strayCSV(1000, rowsOf(map[int]string{}, 1, 100, 200, 300, 400, 500, 600, 700, 800), false), dataset.Options{},
			`Label column "label:l3" is 0/1 except for the value 2 (9 cells, the first on line 3)` + tail},
		{"ten 2s in 1000 rows: 1 %", strayCSV(1000, rowsOf(map[int]string{}, 1, 100, 200, 300, 400, 500, 600, 700, 800, 900), false), dataset.Options{}, ""},
		{"three 2s in 30 rows: 90 % 0/1", strayCSV(30, rowsOf(map[int]string{}, 3, 4, 5), false), dataset.Options{},
			`Label column "label:l3" is 0/1 except for the value 2 (3 cells, the first on line 5)` + tail},
		{"three 2s in 20 rows: 85 % 0/1", strayCSV(20, rowsOf(map[int]string{}, 3, 4, 5), false), dataset.Options{}, ""},
		{"two stray values", strayCSV(500, map[int]string{8: "2", 18: "5"}, false), dataset.Options{},
			`Label column "label:l3" is 0/1 except for the values 2 on line 10 (1 cell) and 5 on line 20 (1 cell) (2 cells), so the data set is read as multi-dimensional; ` +
				`if those values are typos, fix them and upload again (or choose kind=multidim to keep the classes as they are).`},
		{"four stray values", strayCSV(5000, map[int]string{8: "2", 18: "3", 28: "4", 38: "5"}, false), dataset.Options{}, ""},
		{"a stray -1 among 0/1", strayCSV(100, map[int]string{7: "-1"}, false), dataset.Options{},
			`Label column "label:l3" is 0/1 except for the value -1 on line 9 (1 cell)` + tail},
		{"a stray 0 among ±1", codedCSV(100, map[int]string{30: "0"}, false, [2]string{"-1", "1"}), dataset.Options{},
			`Label column "label:l3" is ±1 except for the value 0 on line 32 (1 cell)` + tail},
		{"another label is a class variable", strayCSV(100, rowsOf(map[int]string{}, 55), true), dataset.Options{}, ""},
		{"kind chosen", strayCSV(100, rowsOf(map[int]string{}, 55), false), dataset.Options{Kind: dataset.MultiDim}, ""},
		{"fast CSV path, line 40 002", strayCSV(60_000, rowsOf(map[int]string{}, 40_000), false), dataset.Options{},
			`Label column "label:l3" is 0/1 except for the value 2 on line 40002 (1 cell)` + tail},
		{"ARFF dense", strayARFF(100, rowsOf(map[int]string{}, 55), false), arffOpts,
			`Label column "l3" is 0/1 except for the value 2 on line 61 (1 cell)` + tail},
		{"ARFF sparse", strayARFF(100, rowsOf(map[int]string{}, 10, 20), true), arffOpts,
			`Label column "l3" is 0/1 except for the value 2 (2 cells, the first on line 16)` + tail},
		{"ARFF, 4 %", strayARFF(100, rowsOf(map[int]string{}, 10, 20, 30, 40), false), arffOpts, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			ds := mustLoad(t, c.data, c.opts)
			if ds.Kind != dataset.MultiDim {
				t.Fatalf("got kind %s, want %s (the rule is unchanged)", ds.Kind, dataset.MultiDim)
			}
			var got []string
			for _, w := range ds.Warnings {
				if strings.Contains(w, "except for") {
					got = append(got, w)
				}
			}
			switch {
			case c.want == "" && len(got) > 0:
				t.Errorf("got warnings %q, want none about stray values", got)
			case c.want != "" && (len(got) != 1 || got[0] != c.want):
				t.Errorf("got warnings %q\nwant %q", ds.Warnings, c.want)
			}
		})
	}
}

// TestStrayValuesInManyColumns: a warning per column, the first five named,
// then how many more.
func TestStrayValuesInManyColumns(t *testing.T) {
	var b strings.Builder
	b.WriteString("a")
	for j := range 7 {
		fmt.Fprintf(&b, ",label:c%d", j)
	}
	b.WriteString("\n")
	for i := range 200 {
		fmt.Fprintf(&b, "%d", i)
		for j := range 7 {
			v := fmt.Sprint((i + j) % 2)
			if i == 10+j {
				v = "yes"
			}
			fmt.Fprintf(&b, ",%s", v)
		}
		b.WriteString("\n")
	}
	ds := mustLoad(t, b.String(), dataset.Options{})
	want := []string{}
	for j := range 5 {
		want = append(want, fmt.Sprintf(`Label column "label:c%d" is 0/1 except for the value yes on line %d (1 cell)`, j, 12+j))
	}
	want = append(want, "2 more label columns are binary except for a few cells; they too make the data set multi-dimensional.")
	if len(ds.Warnings) != len(want) {
		t.Fatalf("got warnings %q, want %d", ds.Warnings, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(ds.Warnings[i], w) {
			t.Errorf("warning %d: got %q, want it to start %q", i, ds.Warnings[i], w)
		}
	}
}
