// Package templates holds the pages as templ components. Each component is a
// pure function of its view model, defined here; handlers fill the models.
package templates

import (
	"fmt"
	"strings"

	"mldr/internal/dataset"
)

// Page is what every page's layout needs.
type Page struct {
	Title   string
	Nav     string // the active navigation entry: "datasets"
	Version string
	// Guarded is true when the server needs an access token: the pages
	// offer to log out.
	Guarded bool
}

// LoginView is the login page of a guarded server.
type LoginView struct {
	Page
	// Next is where to go once logged in (a local path).
	Next string
	// Error says why the last attempt failed.
	Error string
}

// FormError is a refused form, shown beside the form. Line and Column locate
// the problem in an uploaded file; Field names the form field at fault.
type FormError struct {
	Message string
	Field   string
	Line    int
	Column  string
}

// HomeView is the home page: data sets, demo data and the upload form.
type HomeView struct {
	Page
	Datasets  []DatasetRow
	Demos     []DemoOption
	Upload    UploadForm
	MaxUpload string
	// Jobs are the most recent jobs.
	Jobs []JobRow
	// Notice confirms what the last action did.
	Notice string
}

// DatasetRow is one data set in the home page's table. Name tells equal
// names apart (views.DatasetNames); Storage is "dense" or "sparse".
type DatasetRow struct {
	ID, Name, FileName, Kind, Storage, Created string
	Rows, Features, Labels                     int
	Problem                                    string
}

// DatasetDelete is what deleting a data set takes with it, for its
// confirmation: Jobs jobs use it (Count says so in words: "3 jobs (1 of
// them a study)"), Running are those that run on it (they refuse the
// deletion until canceled), Error a refused deletion.
type DatasetDelete struct {
	Jobs    int
	Count   string
	Running []string
	Error   *FormError
}

// DemoOption is one demo data set a user can add in one click.
type DemoOption struct {
	ID, Title, Description string
}

// UploadForm is the upload form's state: the values to show again after a
// refusal, and the refusal.
type UploadForm struct {
	Values map[string]string
	Error  *FormError
}

// Value returns the submitted value of a field, or def.
func (u UploadForm) Value(field, def string) string {
	if v, ok := u.Values[field]; ok {
		return v
	}
	return def
}

// Invalid reports whether the refusal concerns field.
func (u UploadForm) Invalid(field string) bool { return u.Error != nil && u.Error.Field == field }

// DatasetView is a data set's page.
type DatasetView struct {
	Page
	ID, Name, FileName, Size, Created, SHA256 string
	Summary                                   dataset.Summary
	// Problem is set when the stored files cannot be read.
	Problem string
	// Numbered is set for a file that numbers its columns (libsvm): its
	// labels cannot be chosen again, and there is no relabel form.
	Numbered bool
	// CSVRefused says why the data as read are not offered as CSV ("":
	// they are).
	CSVRefused string
	// Notice confirms what the last action did ("Uploaded.").
	Notice string
	// Columns are the relabel form's check boxes, nil when the file has
	// more columns than the form offers (ColumnCount > len(Columns)).
	Columns []ColumnChoice
	// ColumnCount is the number of columns in the file and ColumnPreview
	// the first of their names, when Columns is nil.
	ColumnCount   int
	ColumnPreview []string
	// LabelColumns names the label columns, as in the file; LabelNames
	// is them one per line for the relabel form's text field ("" when
	// too many to list).
	LabelColumns []string
	LabelNames   string
	// Choice is set when the plots and tables show some of the labels
	// only: what they show and the form to choose others.
	Choice *LabelChoice
	// LabelRows are the label table's rows (the chosen labels).
	LabelRows []dataset.LabelStat
	// ClassTables are the class tables (multi-dimensional data).
	ClassTables []ClassTable
	// Figures: the label frequencies and (multi-label data) the label NMI.
	Frequency, NMI *FigureView
	// Rank is every label's rows against its rank on log axes, when there
	// are more labels than the frequency bars show (nil otherwise).
	Rank *FigureView
	// NMITable is the NMI matrix as text (nil when there are many labels).
	NMITable *NMITable
	// Folds is the number of predefined folds (0: none).
	Folds int
	// Kind is the kind option the data were read with ("" = decided).
	Kind         string
	RelabelError *FormError
	// Delete is the delete form's confirmation.
	Delete DatasetDelete
}

// LabelList names the current label columns, the first ten of them.
func (v DatasetView) LabelList() string {
	names := v.LabelColumns
	if len(names) > 10 {
		return strings.Join(names[:10], ", ") + fmt.Sprintf(" and %s more", group(len(names)-10))
	}
	return strings.Join(names, ", ")
}

// ColumnSummary names the first columns of a file with too many to list:
// "Att1, Att2, …, Att20 and 999 983 more".
func (v DatasetView) ColumnSummary() string {
	s := strings.Join(v.ColumnPreview, ", ")
	if more := v.ColumnCount - len(v.ColumnPreview); more > 0 {
		s += " and " + group(more) + " more"
	}
	return s
}

// LabelChoice is the part of a data set's labels (class variables) its
// page shows, and the form to choose others: a GET form whose field
// "labels" repeats (the list) and takes names separated by commas (the
// text field), so that the choice is in the address.
type LabelChoice struct {
	// Notice says what is shown: "5 000 labels: the heatmap, … show the
	// 50 most frequent; choose others below."
	Notice string
	// Noun is "labels" or "class variables"; Max the most shown at once.
	Noun string
	Max  int
	// Options are the choice list (the most frequent labels), Unlisted
	// how many labels it leaves out.
	Options  []LabelOption
	Unlisted int
	// Typed is the text field's value: chosen names not in Options.
	Typed string
	// Error is a refused choice (the page then shows the default).
	Error *FormError
	// Chosen is true when the shown labels were chosen, not the default.
	Chosen bool
}

// LabelOption is one label in the choice list.
type LabelOption struct {
	Name, Text string
	Selected   bool
}

// ClassTable is one class variable's table on the page: its most
// frequent classes, and how many classes and rows it leaves out.
type ClassTable struct {
	Name     string
	Constant bool
	// Total is the number of classes; Classes the shown ones.
	Total   int
	Classes []dataset.ClassCount
	// Hidden counts the classes not shown and HiddenRows their rows.
	Hidden, HiddenRows int
}

// ColumnChoice is one column of the file in the relabel form.
type ColumnChoice struct {
	Name  string
	Label bool
}

// ErrorView is a page for a request that went wrong.
type ErrorView struct {
	Page
	Status  int
	Message string
}

// NMITable is the label NMI matrix as text, two decimals.
type NMITable struct {
	Labels   []string
	Constant []bool
	Rows     [][]string
}
