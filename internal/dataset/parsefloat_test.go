package dataset

import (
	"errors"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// parseFloatCases are the hard cases of decimal parsing. Every want is what
// strconv.ParseFloat(in, 64) returns (Go 1.26), which the test checks too;
// fast says whether Clinger's path in scanNumber takes the input or leaves
// it to strconv.
var parseFloatCases = []struct {
	in      string
	want    float64
	wantErr bool
	fast    bool
}{
	{in: "0", want: 0, fast: true},
	{in: "-0", want: math.Copysign(0, -1), fast: true},
	{in: "+0", want: 0, fast: true},
	{in: "-0.000e-999999999999", want: math.Copysign(0, -1), fast: true},
	{in: "0e99999", want: 0, fast: true},
	{in: "1", want: 1, fast: true},
	{in: "+1", want: 1, fast: true},
	{in: "-1", want: -1, fast: true},
	{in: ".5", want: 0.5, fast: true},
	{in: "-.5", want: -0.5, fast: true},
	{in: "5.", want: 5, fast: true},
	{in: "1.e5", want: 1e5, fast: true},
	{in: "00001.2500", want: 1.25, fast: true},
	{in: "0.123456", want: 0.123456, fast: true},
	{in: "-1.234e-03", want: -1.234e-3, fast: true},
	{in: "1E5", want: 1e5, fast: true},
	{in: "1e+05", want: 1e5, fast: true},
	{in: "1e-0", want: 1, fast: true},
	{in: "0.1", want: 0.1, fast: true},
	{in: "3.141592653589793", want: math.Pi, fast: true},
	{in: "1e22", want: 1e22, fast: true},
	{in: "1e-22", want: 1e-22, fast: true},
	{in: "9007199254740991", want: 1<<53 - 1, fast: true},
	{in: "0.0000000000000000000001", want: 1e-22}, // 23 digits, zeros or not
	// Beyond Clinger's bounds: strconv decides.
	{in: "1e23", want: 1e23},
	{in: "1e-23", want: 1e-23},
	{in: "9007199254740992", want: 1 << 53},
	{in: "9007199254740993", want: 1 << 53}, // halfway: to even
	{in: "9007199254740995", want: 1<<53 + 4},
	{in: "1234567890123456789", want: 1234567890123456789},
	{in: "12345678901234567890", want: 12345678901234567890},
	{in: "123456789012345678901234567890", want: 1.2345678901234568e29},
	{in: "0.10000000000000000555", want: 0.1},
	{in: "1.7976931348623157e308", want: math.MaxFloat64},
	{in: "2.2250738585072011e-308", want: 2.225073858507201e-308}, // largest subnormal
	{in: "2.2250738585072014e-308", want: 0x1p-1022},              // smallest normal
	{in: "4.9406564584124654e-324", want: 0x1p-1074},              // smallest subnormal
	{in: "5e-324", want: 0x1p-1074},
	{in: "1e-400", want: 0},
	{in: "1e400", want: math.Inf(1), wantErr: true},
	{in: "-1e400", want: math.Inf(-1), wantErr: true},
	{in: "inf", want: math.Inf(1)},
	{in: "-Infinity", want: math.Inf(-1)},
	{in: "nan", want: math.NaN()},
	{in: "NaN", want: math.NaN()},
	{in: "0x10", wantErr: true}, // a hexadecimal float needs its p exponent
	{in: "0x1p-2", want: 0.25},
	{in: "1_000", want: 1000}, // Go's literal syntax allows underscores
	// Refused, as strconv refuses them.
	{in: "", wantErr: true},
	{in: " 1", wantErr: true},
	{in: "1 ", wantErr: true},
	{in: "\t1", wantErr: true},
	{in: ".", wantErr: true},
	{in: "-", wantErr: true},
	{in: "+.", wantErr: true},
	{in: "e5", wantErr: true},
	{in: "1e", wantErr: true},
	{in: "1e+", wantErr: true},
	{in: "1..2", wantErr: true},
	{in: "--1", wantErr: true},
	{in: "1__0", wantErr: true},
	{in: "_1", wantErr: true},
	{in: "1,5", wantErr: true},
	{in: "١", wantErr: true},
}

// TestParseFloat checks parseFloat on the hard cases, against the table and
// against strconv.ParseFloat.
func TestParseFloat(t *testing.T) {
	for _, tc := range parseFloatCases {
		t.Run(strconv.Quote(tc.in), func(t *testing.T) {
			got, err := parseFloat([]byte(tc.in))
			if (err != nil) != tc.wantErr {
				t.Errorf("error: got %v, want an error: %v", err, tc.wantErr)
			}
			if !sameFloat(got, tc.want) {
				t.Errorf("got %v (%#x), want %v (%#x)", got, math.Float64bits(got), tc.want, math.Float64bits(tc.want))
			}
			checkLikeStrconv(t, tc.in)
			if _, n, exact := scanNumber([]byte(tc.in)); (exact && n == len(tc.in)) != tc.fast {
				t.Errorf("scanNumber: got exact %v over %d of %d bytes, want the fast path: %v", exact, n, len(tc.in), tc.fast)
			}
		})
	}
}

// TestScanNumberPrefix checks where scanNumber stops.
func TestScanNumberPrefix(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want float64
	}{
		{"1,2", 1, 1},
		{"1e", 1, 1},
		{"1e+,", 1, 1},
		{"-2.5e3x", 6, -2500},
		{"  1", 0, 0},
		{".e1", 0, 0},
		{"7 \r\n", 1, 7},
		{"0x10", 1, 0},
	} {
		v, n, exact := scanNumber([]byte(tc.in))
		if n != tc.n || (n > 0 && (!exact || v != tc.want)) {
			t.Errorf("scanNumber(%q): got %v over %d bytes (exact %v), want %v over %d", tc.in, v, n, exact, tc.want, tc.n)
		}
	}
}

// TestParseNumberSpecials checks how the loader's cell parser treats the
// values strconv reads but a feature cannot hold.
func TestParseNumberSpecials(t *testing.T) {
	for _, tc := range []struct {
		tok         string
		ok, missing bool
		err         error
		want        float64
	}{
		{tok: "1.5", ok: true, want: 1.5},
		{tok: "-0", ok: true, want: math.Copysign(0, -1)},
		{tok: "", missing: true},
		{tok: "nan", missing: true},
		{tok: "NaN", missing: true},
		{tok: "NA", missing: true},
		{tok: "?", missing: true},
		{tok: "inf", err: errInfinite},
		{tok: "-Infinity", err: errInfinite},
		{tok: "1e400", err: errInfinite},
		{tok: "1e-400", ok: true, want: 0},
		{tok: " 1", err: errNotNumber}, // the loader trims cells before
		{tok: "1x", err: errNotNumber},
		// The plain spellings.
		{tok: "+2.5", ok: true, want: 2.5},
		{tok: ".5", ok: true, want: 0.5},
		{tok: "5.", ok: true, want: 5},
		{tok: "-1.5E+3", ok: true, want: -1500},
		{tok: "9007199254740993", ok: true, want: 1 << 53}, // strconv rounds it
		// Infinities and NaN in strconv's other spellings.
		{tok: "Inf", err: errInfinite},
		{tok: "+Inf", err: errInfinite},
		{tok: "INFINITY", err: errInfinite},
		{tok: "+infinity", err: errInfinite},
		{tok: "infinit", err: errNotNumber},
		{tok: "+nan", err: errNotNumber}, // strconv refuses a signed NaN
		{tok: "nAn", missing: true},
		// Go's syntax, which strconv reads.
		{tok: "0x1p3", err: errGoSpelling},
		{tok: "0X1P-2", err: errGoSpelling},
		{tok: "+0x1p3", err: errGoSpelling},
		{tok: "-0x1.8p1", err: errGoSpelling},
		{tok: "0x.8p1", err: errGoSpelling},
		{tok: "0x_1p3", err: errGoSpelling},
		{tok: "0x1p9999", err: errGoSpelling}, // not "infinite": hexadecimal first
		{tok: "1_000", err: errGoSpelling},
		{tok: "1_0.5", err: errGoSpelling},
		{tok: "1.5_0", err: errGoSpelling},
		{tok: "1e1_0", err: errGoSpelling},
		{tok: "0_1", err: errGoSpelling},
		// Go-like, but strconv refuses them too.
		{tok: "0x10", err: errNotNumber},
		{tok: "0x", err: errNotNumber},
		{tok: "1__0", err: errNotNumber},
		{tok: "_1", err: errNotNumber},
		{tok: "1_", err: errNotNumber},
		{tok: "1_e5", err: errNotNumber},
		{tok: "0b101", err: errNotNumber},
		{tok: "0o17", err: errNotNumber},
	} {
		v, ok, missing, err := parseNumber([]byte(tc.tok))
		if ok != tc.ok || missing != tc.missing || !errors.Is(err, tc.err) || (ok && !sameFloat(v, tc.want)) {
			t.Errorf("parseNumber(%q): got %v, %v, %v, %v; want %v, %v, %v, %v", tc.tok, v, ok, missing, err, tc.want, tc.ok, tc.missing, tc.err)
		}
	}
}

// FuzzParseFloat checks parseFloat against strconv.ParseFloat on arbitrary
// strings, and scanNumber's promise on every prefix it reads.
func FuzzParseFloat(f *testing.F) {
	for _, tc := range parseFloatCases {
		f.Add(tc.in)
	}
	f.Add("-1.234e-03,0.123456\n")
	for _, s := range []string{"0x1p3", "1_000", "0X1P-2", "+0x1p3", "1_0.5", "0x10", "Inf", "-infinity", "+nan", "1e1_0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkLikeStrconv(t, s)
		checkParseNumber(t, s)
		v, n, exact := scanNumber([]byte(s))
		if n < 0 || n > len(s) || (n == 0 && exact) {
			t.Fatalf("scanNumber(%q): got n = %d, exact %v", s, n, exact)
		}
		if n == 0 {
			return
		}
		want, err := strconv.ParseFloat(s[:n], 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			t.Fatalf("scanNumber(%q) read %q, which strconv refuses: %v", s, s[:n], err)
		}
		if exact && (err != nil || !sameFloat(v, want)) {
			t.Fatalf("scanNumber(%q): got %v (%#x) exact, strconv gives %v (%#x), %v", s, v, math.Float64bits(v), want, math.Float64bits(want), err)
		}
	})
}

// checkParseNumber fails t unless parseNumber(s) reads a number exactly
// when s is one in decimal, as scanNumber reads them, and then gives
// strconv.ParseFloat's value; refuses every other spelling strconv reads
// (an infinity as errInfinite, Go's syntax as errGoSpelling); and calls
// errGoSpelling only what strconv reads.
func checkParseNumber(t *testing.T, s string) {
	t.Helper()
	v, ok, missing, err := parseNumber([]byte(s))
	want, werr := strconv.ParseFloat(s, 64)
	_, n, _ := scanNumber([]byte(s))
	decimal := n > 0 && n == len(s)
	finite := werr == nil && want-want == 0
	switch {
	case decimal && finite && (!ok || !sameFloat(v, want)):
		t.Fatalf("parseNumber(%q): got %v (ok %v, %v), want %v, as strconv reads it", s, v, ok, err, want)
	case decimal && !finite && err != errInfinite:
		t.Fatalf("parseNumber(%q): got %v, %v; strconv gives %v, %v: want errInfinite", s, v, err, want, werr)
	case !decimal && ok:
		t.Fatalf("parseNumber(%q): got the number %v, want a refusal: it is not written in decimal", s, v)
	case err == errGoSpelling && werr != nil && !errors.Is(werr, strconv.ErrRange):
		t.Fatalf("parseNumber(%q): got errGoSpelling, but strconv refuses it: %v", s, werr)
	case err == errGoSpelling && !strings.Contains(s, "_") && !strings.ContainsAny(s, "xX"):
		t.Fatalf("parseNumber(%q): got errGoSpelling for neither underscores nor hexadecimal", s)
	case !decimal && werr == nil && !missing && err != errInfinite && err != errGoSpelling:
		t.Fatalf("parseNumber(%q): got %v; strconv reads it as %v, which is neither infinite nor missing: want errGoSpelling", s, err, want)
	case missing && !missingToken([]byte(s)) && s != "":
		t.Fatalf("parseNumber(%q): got missing for a cell that is no missing-value token", s)
	}
}

// checkLikeStrconv fails t unless parseFloat(s) returns what
// strconv.ParseFloat(s, 64) does: the same bits and the same error.
func checkLikeStrconv(t *testing.T, s string) {
	t.Helper()
	got, gerr := parseFloat([]byte(s))
	want, werr := strconv.ParseFloat(s, 64)
	if !sameFloat(got, want) || (gerr == nil) != (werr == nil) || (gerr != nil && gerr.Error() != werr.Error()) {
		t.Fatalf("parseFloat(%q): got %v (%#x), %v; strconv gives %v (%#x), %v",
			s, got, math.Float64bits(got), gerr, want, math.Float64bits(want), werr)
	}
}

// sameFloat reports whether a and b are the same float64, bit for bit, any
// NaN matching any NaN.
func sameFloat(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || (a != a && b != b)
}

// BenchmarkParseFloat compares parseFloat with strconv.ParseFloat on the
// spellings of the loader benchmark.
func BenchmarkParseFloat(b *testing.B) {
	cells := strings.Fields("0.123456 -1.234e-03 -2.718282 1.000000 12.5 3.4e+01 0.000120 -0.5")
	bs := make([][]byte, len(cells))
	for i, c := range cells {
		bs[i] = []byte(c)
	}
	b.Run("parseFloat", func(b *testing.B) {
		for b.Loop() {
			for _, c := range bs {
				if _, err := parseFloat(c); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("strconv", func(b *testing.B) {
		for b.Loop() {
			for _, c := range cells {
				if _, err := strconv.ParseFloat(c, 64); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

// BenchmarkScanNumberCells reads numeric CSV cells in place, one after the
// other, as the fast path's rows do: the end-to-end benchmark's cells (six
// significant digits of normal values, half of them negative), whose
// varying lengths and signs a branch predictor cannot learn, unlike
// BenchmarkParseFloat's eight repeated cells.
func BenchmarkScanNumberCells(b *testing.B) {
	const cells = 200_000
	rng := rand.New(rand.NewPCG(1, 2))
	var text []byte
	for range cells {
		text = strconv.AppendFloat(text, 2*rng.NormFloat64(), 'g', 6, 64)
		text = append(text, ',')
	}
	vals := make([]float64, cells)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		for c, i := 0, 0; c < cells; c++ {
			v, n, exact := scanNumber(text[i:])
			if !exact || text[i+n] != ',' {
				b.Fatalf("cell %d, %q: not read exactly", c, text[i:min(len(text), i+20)])
			}
			vals[c] = v
			i += n + 1
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/cells, "ns/cell")
}
