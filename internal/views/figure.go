package views

import (
	"encoding/json"
	"net/url"

	"mldr/internal/plots"
	"mldr/web/templates"
)

// Figure renders a figure for a page: inline SVG, its metadata for hover,
// links to its SVG and PNG (base + ".svg" and ".png", with the query q).
// err is the error of building f: a figure the data do not allow (see
// Note) becomes a note in its place; any other error is returned.
func Figure(id, base string, q url.Values, f *plots.Figure, alt string, err error) (*templates.FigureView, error) {
	var svg string
	var meta []byte
	if err == nil {
		svg, err = f.InlineSVG()
	}
	if err == nil {
		meta, err = json.Marshal(f.Meta())
	}
	if msg, ok := Note(err); ok {
		return &templates.FigureView{ID: id, Title: alt, Alt: alt, Note: msg}, nil
	}
	if err != nil {
		return nil, err
	}
	qs := ""
	if len(q) > 0 {
		qs = "?" + q.Encode()
	}
	return &templates.FigureView{ID: id, Title: alt, SVG: svg, Meta: string(meta), Alt: alt,
		SVGURL: base + ".svg" + qs, PNG: base + ".png" + qs}, nil
}
