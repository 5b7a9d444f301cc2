// Package plots turns results into figures: gonum/plot drawings rendered
// as SVG, PNG or PDF.
//
// Each builder checks and copies its data and returns a *Figure, or an
// *InputError saying which input is wrong:
//
//   - LabelFrequency: each label's share of rows, as horizontal bars.
//   - NMIHeatmap: the labels' normalised mutual information, with a
//     colour bar.
//   - Spectrum: eigenvalue shares, their cumulative sum, thr and d.
//   - Projection: rows on two directions, by group, training and test.
//   - Curves: evaluation metrics against d, with error bars and baselines.
//   - CriticalDifference: methods' average ranks over data sets in
//     Demšar's critical-difference diagram, groups that do not differ
//     significantly joined by bars.
//   - RankHeatmap: each method's rank on each data set, and the average.
//
// A Figure renders as a complete SVG document, a PNG at twice the CSS
// resolution or a one-page PDF with its font embedded (Render), as an
// <svg> element to inline in HTML (InlineSVG), and describes itself for
// client-side hover (Meta): where its data area lies in the SVG's viewBox,
// its axis ranges, and the data under the pointer. ForPrint lays a figure
// out for a paper, a column (ColumnWidth) or a page (PageWidth) wide, its
// text at the sizes of a paper's figures.
//
// Every figure follows one style: a bold title and a grey subtitle across
// the top; legends and colour bars in a column right of the plot, never
// over the data; the colour-blind-safe Okabe–Ito palette for categories
// (SeriesColor, OtherColor for "other") and viridis for sequential scales;
// and never colour alone: series and groups also differ by marker shape,
// reference lines by dash pattern, constant labels by hatching. Text uses
// gonum's embedded Liberation fonts (Liberation Sans); SVG text names
// Arial, its metric twin, as fallback where Liberation is not installed.
//
// Figures are rebuilt from their data at every render, so they are
// immutable and safe for concurrent use, and rendering is deterministic:
// the same input gives the same bytes (a PDF but for its creation date).
package plots
