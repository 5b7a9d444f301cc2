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

// DatasetRow is one data set in the home page's table.
type DatasetRow struct {
	ID, Name, FileName, Kind, Created string
	Rows, Features, Labels            int
	Problem                           string
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
	// Notice confirms what the last action did ("Uploaded.").
	Notice  string
	Columns []ColumnChoice
	// Figures: the label frequencies and (multi-label data) the label NMI.
	Frequency, NMI *FigureView
	// NMITable is the NMI matrix as text (nil when there are many labels).
	NMITable *NMITable
	// Folds is the number of predefined folds (0: none).
	Folds int
	// Kind is the kind option the data were read with ("" = decided).
	Kind         string
	RelabelError *FormError
}

// LabelList names the current label columns, the first ten of them.
func (v DatasetView) LabelList() string {
	var names []string
	for _, c := range v.Columns {
		if c.Label {
			names = append(names, c.Name)
		}
	}
	if len(names) > 10 {
		return strings.Join(names[:10], ", ") + fmt.Sprintf(" and %d more", len(names)-10)
	}
	return strings.Join(names, ", ")
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
