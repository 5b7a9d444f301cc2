package views

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"mldr/internal/analysis"
	"mldr/internal/evaluate"
	"mldr/internal/jobs"
)

// decoded is a method whose labels its own decoder predicts, not the
// classifier (evaluate.Row.Decoder).
type decoded struct {
	method, regressor string
	lambda            float64
}

// rowDecoders are the decoders metrics.json's rows name, in the rows'
// order.
func rowDecoders(rows []evaluate.Row) []decoded {
	var out []decoded
	for _, r := range rows {
		if r.Decoder == "" || slices.ContainsFunc(out, func(d decoded) bool { return d.method == r.Method }) {
			continue
		}
		d := decoded{method: r.Method, regressor: r.Decoder}
		if r.DecoderLambda != nil {
			d.lambda = *r.DecoderLambda
		}
		out = append(out, d)
	}
	return out
}

// requestDecoders are the decoders of a request's label-space methods, as
// the evaluation fits them (their λ, or analysis.DefaultLambda).
func requestDecoders(req jobs.Request) []decoded {
	lambda := analysis.DefaultLambda
	if req.Params.Lambda != nil {
		lambda = cmp.Or(*req.Params.Lambda, lambda)
	}
	var out []decoded
	for _, id := range req.MethodIDs() {
		m, ok := analysis.Lookup(id)
		if !ok || m.Space != analysis.LabelSpace {
			continue
		}
		d := evaluate.DecoderOf(id, lambda)
		out = append(out, decoded{method: id, regressor: d.Regressor, lambda: d.Lambda})
	}
	return out
}

// regressorNames are the decoders' names for people.
var regressorNames = map[string]string{
	evaluate.DecoderRidge:       "ridge regression",
	evaluate.DecoderKernelRidge: "Gaussian-kernel ridge regression",
	evaluate.DecoderLEML:        "LEML's own low-rank regression",
}

// decoderNote says which methods predict their labels by their own
// decoder, whatever the classifier: "PLST and CPLST: decoded by ridge
// regression, λ = 0.1; LEML: decoded by LEML's own low-rank regression,
// λ = 0.1, not by the classifier", methods grouped by decoder and λ; "" when none does. lambda
// is how λ is written ("λ", or "lambda" in ASCII).
func decoderNote(ds []decoded, lambda string) string {
	type key struct {
		regressor string
		lambda    float64
	}
	var order []key
	methods := map[key][]string{}
	for _, d := range ds {
		k := key{d.regressor, d.lambda}
		if _, ok := methods[k]; !ok {
			order = append(order, k)
		}
		methods[k] = append(methods[k], MethodName(d.method))
	}
	var parts []string
	for _, k := range order {
		names := methods[k]
		list := strings.Join(names, ", ")
		if n := len(names); n > 1 {
			list = strings.Join(names[:n-1], ", ") + " and " + names[n-1]
		}
		parts = append(parts, fmt.Sprintf("%s: decoded by %s, %s = %s", list, cmp.Or(regressorNames[k.regressor], k.regressor), lambda, strconv.FormatFloat(k.lambda, 'g', -1, 64)))
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, "; ") + ", not by the classifier"
}
