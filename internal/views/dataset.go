package views

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"mldr/internal/dataset"
	"mldr/internal/jobs"
	"mldr/internal/plots"
	"mldr/internal/store"
	"mldr/web/templates"
)

// DatasetOptions are the choices of a data set's page.
type DatasetOptions struct {
	// Choice is the labels shown; ChoiceError, when not nil, is why the
	// ?labels= asked for was refused (Choice is then the default).
	Choice      LabelChoice
	ChoiceError *templates.FormError
	// RelabelError is a refused relabelling, shown beside its form.
	RelabelError *templates.FormError
	// Use is how the jobs use the data set, for the delete form's
	// confirmation; nil when the server runs no jobs. DeleteError is a
	// refused deletion, shown beside that form.
	Use         *jobs.DatasetUse
	DeleteError *templates.FormError
	// Problem is what is wrong with the data set's files ("": nothing);
	// a data set with a problem shows no figures.
	Problem string
	// Details are the data set's details (Store.Details); nil when they
	// could not be read (Problem says why).
	Details *dataset.Details
}

// deleteView is the delete form's confirmation: the jobs that go with the
// data set, and those running on it.
func deleteView(u *jobs.DatasetUse, fe *templates.FormError) templates.DatasetDelete {
	d := templates.DatasetDelete{Error: fe}
	if u == nil {
		return d
	}
	d.Jobs, d.Count = len(u.Jobs), u.Count()
	for _, j := range u.Active {
		d.Running = append(d.Running, j.ID)
	}
	return d
}

// Dropped is a figure a page left out because building it failed with
// an error that is not the data's (those become a note in its place):
// the page still shows, and the caller logs it.
type Dropped struct {
	Figure string
	Err    error
}

// Dataset builds a data set's page but for its Page and Notice: the
// summary, the relabel form, the label table or class tables, the
// frequency plot and the NMI heatmap (and table) of the chosen labels.
func (b *Builder) Dataset(rec store.DatasetRecord, o DatasetOptions) (templates.DatasetView, []Dropped) {
	v := templates.DatasetView{
		ID: rec.ID, Name: rec.Name, FileName: rec.FileName,
		Size: store.FormatBytes(rec.Bytes), Created: FormatTime(rec.CreatedAt), SHA256: rec.SHA256,
		Summary: rec.Summary, Problem: o.Problem, Kind: string(rec.Options.Kind), RelabelError: o.RelabelError, Folds: rec.Folds,
	}
	v.CSVRefused = CSVRefused(rec)
	v.Delete = deleteView(o.Use, o.DeleteError)
	det := o.Details
	if det == nil {
		return v, nil
	}
	v.Numbered = det.Labels.Numbered()
	relabelColumns(&v, det)
	s := rec.Summary
	c := o.Choice
	if c.partial() || o.ChoiceError != nil {
		v.Choice = choiceView(det, c, o.ChoiceError)
	}
	for _, j := range c.Idx {
		v.LabelRows = append(v.LabelRows, det.Stat(j))
	}
	if s.Kind == dataset.MultiDim {
		v.ClassTables = classTables(v.LabelRows)
	}
	var dropped []Dropped
	figure := func(id, base string, f *plots.Figure, alt string, err error) *templates.FigureView {
		fv, err := Figure(id, base, c.query(det), f, alt, err)
		if err != nil {
			dropped = append(dropped, Dropped{Figure: id, Err: err})
			return nil
		}
		return fv
	}
	if v.Problem == "" && s.LabelCount > 0 && s.Kind == dataset.MultiLabel {
		f, alt, err := b.DatasetFigure(rec, "labels", c)
		v.Frequency = figure("labels", "/api/datasets/"+rec.ID+"/plots/labels", f, alt, err)
		if s.LabelCount > MaxShownLabels {
			// Every label's frequency at once, where the bars show a part.
			f, alt, err := b.DatasetFigure(rec, "rank", c)
			v.Rank = figure("rank", "/api/datasets/"+rec.ID+"/plots/rank", f, alt, err)
		}
		n, err := b.labelNMI(rec, c)
		f = nil
		alt = ""
		if err == nil {
			f, alt, err = n.figure()
			if len(n.labels) <= maxNMITable {
				v.NMITable = n.table()
			}
		}
		v.NMI = figure("nmi", "/api/datasets/"+rec.ID+"/plots/nmi", f, alt, err)
	}
	return v, dropped
}

// The bounds of the data as read as CSV (GET /api/datasets/{id}/data.csv).
const (
	// MaxCSVCells is the most cells the CSV of a data set may have
	// whatever it holds.
	MaxCSVCells = 10_000_000
	// maxCSVBlowUp is how many times the values a data set stores its CSV
	// may have as cells, beyond MaxCSVCells: a sparse data set's CSV
	// writes every zero.
	maxCSVBlowUp = 16
)

// CSVRefused says why the data set rec is not offered as CSV, "" when it
// is: its CSV would have more than MaxCSVCells cells and more than
// maxCSVBlowUp times the values it stores (a file of a few entries in
// millions of columns would be gigabytes of zeros). The file as
// uploaded holds the same data.
func CSVRefused(rec store.DatasetRecord) string {
	s := rec.Summary
	cells := dataset.CSVCells(s.Rows, s.Features, s.LabelCount)
	held := int64(s.Rows)
	if s.Storage == dataset.StorageSparse {
		held += s.NonZeros
	} else {
		held += int64(s.Rows) * int64(s.Features)
	}
	if s.LabelStorage == dataset.StorageSparse {
		held += s.LabelOnes
	} else {
		held += int64(s.Rows) * int64(s.LabelCount)
	}
	if cells <= MaxCSVCells || cells <= maxCSVBlowUp*held {
		return ""
	}
	return fmt.Sprintf("as CSV it would be a header and %s rows of %s columns, %s cells, where the data set holds %s values "+
		"(the rest are zeros); download the file as uploaded instead (/api/datasets/%s/source), which holds the same data",
		plots.GroupDigits(s.Rows), plots.GroupDigits(s.Features+s.LabelCount), plots.GroupDigits(int(cells)), plots.GroupDigits(int(held)), rec.ID)
}

// relabelColumns fills the relabel form: a check box per column up to
// maxColumnChecks columns, else the first names and a text field of the
// label columns' names. A file whose columns are numbered, not named
// (libsvm), has none, and no relabel form.
func relabelColumns(v *templates.DatasetView, det *dataset.Details) {
	v.LabelColumns = det.LabelColumns
	if len(det.Columns) == 0 {
		return
	}
	if len(det.Columns) <= maxColumnChecks {
		isLabel := make(map[string]bool, len(det.LabelColumns))
		for _, c := range det.LabelColumns {
			isLabel[c] = true
		}
		v.Columns = make([]templates.ColumnChoice, 0, len(det.Columns))
		for _, c := range det.Columns {
			v.Columns = append(v.Columns, templates.ColumnChoice{Name: c, Label: isLabel[c]})
		}
		return
	}
	v.ColumnCount = len(det.Columns)
	v.ColumnPreview = det.Columns[:maxColumnPreview]
	if len(det.LabelColumns) <= MaxListed {
		v.LabelNames = strings.Join(det.LabelColumns, "\n")
	}
}

// choiceView is the page's notice and form for a part of the labels.
func choiceView(det *dataset.Details, c LabelChoice, fe *templates.FormError) *templates.LabelChoice {
	noun := LabelNoun(det.Kind)
	what := "the heatmap, the frequency plot and the table show"
	if det.Kind == dataset.MultiDim {
		what = "the class tables show"
	}
	which := fmt.Sprintf("the %s most frequent", plots.GroupDigits(len(c.Idx)))
	switch {
	case c.Chosen && len(c.Idx) == 1:
		which = "the one you chose"
	case c.Chosen:
		which = fmt.Sprintf("the %s you chose", plots.GroupDigits(len(c.Idx)))
	case det.Kind == dataset.MultiDim:
		which = fmt.Sprintf("the first %s", plots.GroupDigits(len(c.Idx)))
	}
	v := &templates.LabelChoice{Notice: fmt.Sprintf("%s: %s %s; choose others below.", countOf(c.Total, strings.TrimSuffix(noun, "s"), noun), what, which),
		Noun: noun, Max: MaxShownLabels, Error: fe, Chosen: c.Chosen}
	// The options listed: the most frequent labels (multi-label), or the
	// first class variables, in the data's order.
	listed := det.Top(MaxLabelOptions)
	if det.Kind == dataset.MultiLabel {
		listed = slices.Sorted(slices.Values(listed))
	}
	isListed := make(map[int]bool, len(listed))
	for _, j := range listed {
		isListed[j] = true
	}
	chosen := map[int]bool{}
	var typed []string
	for _, j := range c.Idx {
		chosen[j] = c.Chosen
		if c.Chosen && !isListed[j] {
			typed = append(typed, det.Labels.At(j))
		}
	}
	v.Typed = strings.Join(typed, ", ")
	for _, j := range listed {
		name := det.Labels.At(j)
		text := name
		if det.Kind == dataset.MultiLabel {
			text = fmt.Sprintf("%s (%.1f%%)", name, 100*det.Stat(j).Frequency)
		}
		v.Options = append(v.Options, templates.LabelOption{Name: name, Text: text, Selected: chosen[j]})
	}
	v.Unlisted = det.LabelCount() - len(v.Options)
	return v
}

// classTables are the class tables of the chosen class variables, each
// with its most frequent maxShownClasses classes (in category order).
func classTables(stats []dataset.LabelStat) []templates.ClassTable {
	out := make([]templates.ClassTable, 0, len(stats))
	for _, l := range stats {
		t := templates.ClassTable{Name: l.Name, Constant: l.Constant, Total: len(l.Classes), Classes: l.Classes}
		if len(l.Classes) > maxShownClasses {
			order := make([]int, len(l.Classes))
			for i := range order {
				order[i] = i
			}
			slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(l.Classes[b].Count, l.Classes[a].Count) })
			keep := slices.Sorted(slices.Values(order[:maxShownClasses]))
			t.Classes = make([]dataset.ClassCount, len(keep))
			for i, c := range keep {
				t.Classes[i] = l.Classes[c]
			}
			t.Hidden = len(l.Classes) - maxShownClasses
			for _, c := range order[maxShownClasses:] {
				t.HiddenRows += l.Classes[c].Count
			}
		}
		out = append(out, t)
	}
	return out
}
