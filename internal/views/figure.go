package views

import (
	"encoding/json"
	"maps"
	"net/url"

	"mldr/internal/plots"
	"mldr/web/templates"
)

// Figure renders a figure for a page: inline SVG, its metadata for hover,
// links to its SVG, PNG and PDF (base + ".svg", ".png" and ".pdf", with the
// query q), and to its PDF a column and a page of a paper wide. err is the
// error of building f: a figure the data do not allow (see Note) becomes a
// note in its place; any other error is returned.
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
	return &templates.FigureView{ID: id, Title: f.Title(), SVG: svg, Meta: string(meta), Alt: alt,
		SVGURL: fileURL(base+".svg", q, ""), PNG: fileURL(base+".png", q, ""), PDF: fileURL(base+".pdf", q, ""),
		PDFColumn: fileURL(base+".pdf", q, "column"), PDFPage: fileURL(base+".pdf", q, "page")}, nil
}

// fileURL is the address of a figure's file with the query q and, if
// width is not "", ?width=width.
func fileURL(path string, q url.Values, width string) string {
	if width != "" {
		q = maps.Clone(q)
		if q == nil {
			q = url.Values{}
		}
		q.Set("width", width)
	}
	if len(q) == 0 {
		return path
	}
	return path + "?" + q.Encode()
}
