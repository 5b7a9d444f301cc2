package plots

import (
	"fmt"
	"math"
)

// InputError is a refusal of a builder's input: lengths that do not match,
// a NaN or infinite value, nothing to draw, a parameter out of range. It is
// the caller's data at fault (an API answers 400), never a bug.
type InputError struct {
	// Field names the input at fault ("freq", "Series[2].Err", …).
	Field string
	Msg   string
}

func (e *InputError) Error() string { return "plots: " + e.Field + ": " + e.Msg }

func inputErr(field, format string, args ...any) *InputError {
	return &InputError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// checkLen refuses a slice whose length n is not want.
func checkLen(field string, n, want int, what string) error {
	if n != want {
		return inputErr(field, "has %s, want %d (one per %s)", plural(n, "value", "values"), want, what)
	}
	return nil
}

// checkFinite refuses NaN and ±Inf in vs.
func checkFinite(field string, vs []float64) error {
	for i, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return inputErr(fmt.Sprintf("%s[%d]", field, i), "is %v, want a finite number", v)
		}
	}
	return nil
}

// checkRange refuses a nil-able [min, max] pair that is not finite and
// increasing.
func checkRange(field string, r *[2]float64) error {
	if r == nil {
		return nil
	}
	if err := checkFinite(field, r[:]); err != nil {
		return err
	}
	if !(r[0] < r[1]) {
		return inputErr(field, "is [%v, %v], want min < max", r[0], r[1])
	}
	return nil
}

// clone copies a slice (nil stays nil), so that a Figure does not change
// when its caller later reuses the slices it was built from.
func clone[T any](s []T) []T {
	if s == nil {
		return nil
	}
	return append([]T(nil), s...)
}

// boolsOrFalse returns a copy of b, or n falses for nil.
func boolsOrFalse(b []bool, n int) []bool {
	if b == nil {
		return make([]bool, n)
	}
	return clone(b)
}
