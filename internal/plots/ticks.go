package plots

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
)

// The tickers of the figures' axes, in place of gonum's DefaultTicks
// (three labels, sparse at this size) and LogTicks.

// niceTicks labels at most n round values (steps of 1, 2 or 5 times a
// power of ten) with a minor tick halfway between; gonum's DefaultTicks
// aims at three labels, sparse for a figure this size.
type niceTicks struct{ n int }

// Ticks implements plot.Ticker.
func (t niceTicks) Ticks(lo, hi float64) []plot.Tick {
	span := hi - lo
	if !(span > 0) || math.IsInf(span, 0) {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	mag := math.Pow(10, math.Floor(math.Log10(span/float64(t.n))))
	step := 10 * mag
	for _, m := range []float64{1, 2, 5} {
		if span/(m*mag) <= float64(t.n) {
			step = m * mag
			break
		}
	}
	decimals := max(0, -int(math.Floor(math.Log10(step)+1e-9)))
	var ts []plot.Tick
	half := step / 2
	for k := math.Ceil(lo/half - 1e-9); k*half <= hi+half*1e-9; k++ {
		v := k * half
		tick := plot.Tick{Value: v}
		if math.Mod(k, 2) == 0 {
			if v == 0 {
				v = 0 // no "-0"
			}
			tick.Label = strconv.FormatFloat(v, 'f', decimals, 64)
		}
		ts = append(ts, tick)
	}
	return ts
}

// shareTicks ticks a share axis every 0.2 from 0, with minor ticks every
// 0.1.
type shareTicks struct{}

// Ticks implements plot.Ticker.
func (shareTicks) Ticks(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	for k := 0; float64(k)/10 <= hi+1e-9; k++ {
		v := float64(k) / 10
		if v < lo-1e-9 {
			continue
		}
		t := plot.Tick{Value: v}
		if k%2 == 0 {
			t.Label = strconv.FormatFloat(v, 'g', -1, 64)
		}
		ts = append(ts, t)
	}
	return ts
}

// intTicks ticks an axis of counts at whole numbers: labels every 1, 2, 5,
// 10, 20, … (at most about ten), minor ticks at the integers between when
// there are few enough.
type intTicks struct{}

// Ticks implements plot.Ticker.
func (intTicks) Ticks(lo, hi float64) []plot.Tick {
	first, last := math.Ceil(lo), math.Floor(hi)
	span := last - first + 1
	step := 1.0
	for m := 1.0; span/step > 10; m *= 10 {
		for _, s := range []float64{1, 2, 5} {
			step = s * m
			if span/step <= 10 {
				break
			}
		}
	}
	var ts []plot.Tick
	for v := first; v <= last; v++ {
		switch {
		case math.Mod(v, step) == 0:
			if v == 0 {
				v = 0 // no "-0"
			}
			ts = append(ts, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', 0, 64)})
		case span <= 100:
			ts = append(ts, plot.Tick{Value: v})
		}
	}
	return ts
}

// logTicks ticks a log axis at the powers of ten (labelled) and their
// multiples 2…9. gonum's LogTicks finds its first decade with
// int(math.Log10(min)), which truncates towards zero and, with
// Log10(0.1) = -0.999…, can skip the bottom decade's label.
type logTicks struct{}

// Ticks implements plot.Ticker.
func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	first := int(math.Floor(math.Log10(lo) + 1e-9))
	last := int(math.Ceil(math.Log10(hi) - 1e-9))
	every := 1 + (last-first)/8 // label at most about 8 decades
	var ts []plot.Tick
	for e := first; e <= last; e++ {
		dec := math.Pow(10, float64(e))
		for m := 1; m <= 9; m++ {
			v := dec * float64(m)
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 && (e-first)%every == 0 {
				t.Label = strconv.FormatFloat(v, 'g', -1, 64)
			}
			ts = append(ts, t)
		}
	}
	return ts
}

// logTicks125 ticks a log axis of counts, such as d: labels at 1, 2 and 5
// times the powers of ten (only at the powers beyond three decades), the
// other multiples unlabelled.
type logTicks125 struct{}

// Ticks implements plot.Ticker.
func (logTicks125) Ticks(lo, hi float64) []plot.Tick {
	ts := logTicks{}.Ticks(lo, hi)
	many := math.Log10(hi/lo) > 3
	for i := range ts {
		v := ts[i].Value
		m := v / math.Pow(10, math.Floor(math.Log10(v)+1e-9))
		m = math.Round(m)
		ts[i].Label = ""
		if m == 1 || (!many && (m == 2 || m == 5)) {
			ts[i].Label = strconv.FormatFloat(v, 'g', -1, 64)
		}
	}
	return ts
}
