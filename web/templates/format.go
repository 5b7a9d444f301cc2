package templates

import (
	"fmt"
	"strconv"
)

func itoa(n int) string { return strconv.Itoa(n) }

func ariaInvalid(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func kindName(k string) string {
	switch k {
	case "multilabel":
		return "multi-label"
	case "multidim":
		return "multi-dimensional"
	}
	return k
}

func percent(f float64) string { return fmt.Sprintf("%.1f%%", 100*f) }

func decimal(f *float64, digits int) string {
	if f == nil {
		return "—"
	}
	return strconv.FormatFloat(*f, 'f', digits, 64)
}

func ftoa(f float64) string { return strconv.FormatFloat(f, 'f', 4, 64) }

func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12] + "…"
	}
	return h
}
