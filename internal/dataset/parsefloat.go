package dataset

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unsafe"
)

// pow10 holds the powers of ten that float64 represents exactly.
var pow10 = [...]float64{
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
}

// scanNumber reads the decimal number at the start of s, as long as it
// goes:
//
//	[+-]? (digits ["." digits?] | "." digits) ([eE] [+-]? digits)?
//
// It returns n, the number's length (0 when s does not start with one; an
// "e" without exponent digits is not part of it), and, when exact is true,
// v = strconv.ParseFloat(s[:n], 64), which then returns no error. strconv
// accepts every s[:n]; when exact is false the caller must ask it for the
// value (it may also report a range error).
//
// The value is exact by Clinger's fast path (W. D. Clinger, "How to read
// floating point numbers accurately", PLDI 1990): when the digits, without
// the point, form an integer m < 2^53 and the decimal exponent k has
// |k| ≤ 22, both m and 10^|k| are float64s, so m·10^k and m/10^−k are one
// correctly rounded IEEE operation, as strconv's own exact path does. Zero
// is ±0 whatever the exponent. Anything else (more than 19 digits, leading
// zeros included; larger exponents) is left to strconv.
func scanNumber(s []byte) (v float64, n int, exact bool) {
	i := 0
	var sign uint64 // the sign bit of the value
	if len(s) > 0 {
		// Tables, not a branch that half the cells of signed data
		// would mispredict.
		sign, i = signBit[s[0]], int(signLen[s[0]])
	}
	var mant uint64 // the digits, without the point; wrapped past 19
	start := i
	for ; i < len(s); i++ {
		d := s[i] - '0'
		if d > 9 {
			break
		}
		mant = mant*10 + uint64(d)
	}
	digits := i - start
	k := 0 // decimal exponent of mant
	if i < len(s) && s[i] == '.' {
		i++
		frac := i
		for ; i < len(s); i++ {
			d := s[i] - '0'
			if d > 9 {
				break
			}
			mant = mant*10 + uint64(d)
		}
		k = frac - i
		digits += i - frac
	}
	if digits == 0 {
		return 0, 0, false
	}
	if i < len(s) && s[i]|0x20 == 'e' {
		j := i + 1
		eneg := false
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			eneg = s[j] == '-'
			j++
		}
		e, start := 0, j
		for ; j < len(s); j++ {
			d := s[j] - '0'
			if d > 9 {
				break
			}
			if e < 10000 { // as strconv caps it; beyond is out of range anyway
				e = e*10 + int(d)
			}
		}
		if j > start {
			i = j
			if eneg {
				e = -e
			}
			k += e
		}
	}
	if digits > 19 {
		// mant may have wrapped (or the digits may be zeros): strconv
		// decides.
		return 0, i, false
	}
	if mant >= 1<<53 || k < -22 || k > 22 {
		if mant == 0 {
			return math.Float64frombits(sign), i, true
		}
		return 0, i, false
	}
	v = math.Float64frombits(math.Float64bits(float64(mant)) | sign)
	if k >= 0 {
		return v * pow10[k], i, true
	}
	return v / pow10[-k], i, true
}

// signLen is 1 for the bytes of a sign, 0 for the others.
var signLen = [256]uint8{'-': 1, '+': 1}

// signBit is a float64's sign bit for '-', 0 for the other bytes.
var signBit = [256]uint64{'-': 1 << 63}

// parseFloat returns what strconv.ParseFloat(string(s), 64) returns, value
// and error, without converting s to a string, and faster for the common
// short decimal numbers (see scanNumber).
func parseFloat(s []byte) (float64, error) {
	if v, n, exact := scanNumber(s); exact && n == len(s) {
		return v, nil
	}
	return strconv.ParseFloat(unsafe.String(unsafe.SliceData(s), len(s)), 64)
}

// parseDecimal reads s when the whole of it is a decimal number as
// scanNumber reads it; ok is false otherwise. v is then what
// strconv.ParseFloat gives, ±Inf for a number beyond float64's range.
func parseDecimal(s []byte) (v float64, ok bool) {
	v, n, exact := scanNumber(s)
	if n == 0 || n != len(s) {
		return 0, false
	}
	if !exact {
		// strconv reads every number scanNumber reads; its only error is
		// the range, with ±Inf.
		v, _ = strconv.ParseFloat(unsafe.String(unsafe.SliceData(s), len(s)), 64)
	}
	return v, true
}

// Go's number syntax, which strconv.ParseFloat reads but which no
// spreadsheet writes: a cell in it is not a number (goSpelling).
const (
	goHex        = "hexadecimal" // 0x1p3, -0X1P-2, 0x_1p3
	goUnderscore = "underscore"  // 1_000, 1_0.5, 1e1_0
)

// goSpelling names the Go syntax of s, goHex or goUnderscore, when
// strconv.ParseFloat reads s as a number in it: a hexadecimal number (a
// "0x" or "0X" after the sign, and a "p" exponent) or digits grouped by
// underscores. It is "" for anything else, "0x10" and "1__0" among them,
// which strconv refuses too. The loader reads no such cell as a number,
// so that "1_000" is not taken for 1000, nor "0x1p3" for 8, without a
// word.
func goSpelling(s string) string {
	var kind string
	t := s
	if len(t) > 0 && (t[0] == '+' || t[0] == '-') {
		t = t[1:]
	}
	switch {
	case len(t) >= 2 && t[0] == '0' && t[1]|0x20 == 'x':
		kind = goHex
	case strings.IndexByte(s, '_') >= 0:
		kind = goUnderscore
	default:
		return ""
	}
	if _, err := strconv.ParseFloat(s, 64); err != nil && !errors.Is(err, strconv.ErrRange) {
		return ""
	}
	return kind
}

// numberValue is strconv.ParseFloat(s, 64) for the spellings the loader
// reads as numbers (decimal numbers, and "inf" and "nan" in their
// spellings); ok is false for the rest, Go's syntax among them (see
// goSpelling).
func numberValue(s string) (v float64, ok bool) {
	if goSpelling(s) != "" {
		return 0, false
	}
	v, err := strconv.ParseFloat(s, 64)
	return v, err == nil
}

// goSpellingMsg is the refusal of a cell written in Go's number syntax
// (goSpelling), with the decimal spelling to write instead.
func goSpellingMsg(tok []byte) string {
	s := string(tok)
	if goSpelling(s) == goHex {
		msg := fmt.Sprintf("%s is written in hexadecimal, which is not read as a number; write it in decimal", quote(tok))
		if v, err := strconv.ParseFloat(s, 64); err == nil {
			msg += " (" + strconv.FormatFloat(v, 'g', -1, 64) + ")"
		}
		return msg
	}
	return fmt.Sprintf("%s separates its digits with \"_\", which is not read as a number; write it without them (%s)",
		quote(tok), Cut(strings.ReplaceAll(s, "_", "")))
}
