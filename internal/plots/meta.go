package plots

import (
	"gonum.org/v1/plot"
)

// Meta describes a rendered figure for client-side hover.
//
// The data area is the rectangle (X0, Y0)–(X1, Y1) in the coordinates of the
// SVG's viewBox (points; origin top left, y down; Width × Height in all),
// the same for the PNG once scaled by PNGDPI/72. A data value x maps to
//
//	X0 + (X1−X0)·(x−XMin)/(XMax−XMin)          (linear axis)
//	X0 + (X1−X0)·log(x/XMin)/log(XMax/XMin)    (XLog)
//
// and y likewise to Y1 − (Y1−Y0)·(…), since y grows upwards. The inverse
// maps a pointer to data coordinates.
//
// What else is filled depends on Kind:
//
//   - "frequency": Rows are the label names top to bottom, label i centred
//     at y = len(Rows)−1−i, Values[i][0] its share of rows, Constant its
//     marks; x is the share.
//   - "heatmap": Rows and Cols are the label names, Values the matrix
//     (Values[i][j] for row i, column j), Constant the marks. Column j is
//     centred at x = j and row i at y = len(Rows)−1−i (row 0 on top).
//   - "spectrum": Series "share" (bars at x = component 1, 2, …) and
//     "cumulative"; Note says how negative eigenvalues were shown.
//   - "scatter": Points, the points drawn (after any subsampling, and
//     inside fixed axis ranges), with Shown of Total rows sampled and Note
//     saying so when some were left out; Cols are the group names.
//   - "curves": Series, the lines as given.
//   - "cd": Cols are the methods best first and Values[0] their average
//     ranks; x is the rank axis (y carries no data: it is points up from
//     the diagram's bottom); Note gives the critical difference ("CD =
//     1.25 at α = 0.05", or "no critical difference").
//   - "ranks": Rows are the data sets, Cols the methods, Values[i][j]
//     method j's rank on data set i (0 where it has none) and Avg the
//     average ranks (0 for none). Column j is centred at x = j, data set i
//     at y = len(Rows)−1−i, and the average row at y = −1.25 (from −1.75
//     to −0.75).
type Meta struct {
	Kind     string       `json:"kind"`
	Width    float64      `json:"w"`
	Height   float64      `json:"h"`
	X0       float64      `json:"x0"`
	Y0       float64      `json:"y0"`
	X1       float64      `json:"x1"`
	Y1       float64      `json:"y1"`
	XMin     float64      `json:"xmin"`
	XMax     float64      `json:"xmax"`
	YMin     float64      `json:"ymin"`
	YMax     float64      `json:"ymax"`
	XLog     bool         `json:"xlog,omitempty"`
	YLog     bool         `json:"ylog,omitempty"`
	Rows     []string     `json:"rows,omitempty"`
	Cols     []string     `json:"cols,omitempty"`
	Values   [][]float64  `json:"values,omitempty"`
	Avg      []float64    `json:"avg,omitempty"`
	Constant []bool       `json:"constant,omitempty"`
	Points   []Point      `json:"points,omitempty"`
	Series   []SeriesMeta `json:"series,omitempty"`
	Shown    int          `json:"shown,omitempty"`
	Total    int          `json:"total,omitempty"`
	Note     string       `json:"note,omitempty"`
}

// Point is one drawn point of a scatter, in data coordinates rounded to 5
// significant digits (a hundredth of a point on the figure), to keep Meta
// small.
type Point struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
	// Label is the hover text: the caller's, or the group's name.
	Label string `json:"l,omitempty"`
	// Group indexes Meta.Cols; -1 is "other".
	Group int `json:"g"`
	// Test marks a test point.
	Test bool `json:"t,omitempty"`
}

// SeriesMeta is one series of a spectrum or curves figure, as drawn.
type SeriesMeta struct {
	Name     string    `json:"name"`
	X        []float64 `json:"x"`
	Y        []float64 `json:"y"`
	Err      []float64 `json:"err,omitempty"`
	Baseline bool      `json:"baseline,omitempty"`
}

// Meta describes the data area of the rendered figure and the data hover
// needs; see the Meta type. It lays the figure out exactly as Render does.
func (f *Figure) Meta() Meta {
	s := f.build()
	w, h := f.size()
	data := f.drawScene(f.canvas(nopCanvas{w: w, h: h}), s)
	k := f.zoom()
	m := s.meta
	m.Width = w.Points()
	m.Height = h.Points()
	m.X0 = k * data.Min.X.Points()
	m.X1 = k * data.Max.X.Points()
	m.Y0 = k * (f.height - data.Max.Y).Points()
	m.Y1 = k * (f.height - data.Min.Y).Points()
	m.XMin, m.XMax = s.plot.X.Min, s.plot.X.Max
	m.YMin, m.YMax = s.plot.Y.Min, s.plot.Y.Max
	_, m.XLog = s.plot.X.Scale.(plot.LogScale)
	_, m.YLog = s.plot.Y.Scale.(plot.LogScale)
	return m
}
