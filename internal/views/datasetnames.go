package views

import (
	"cmp"
	"fmt"

	"mldr/internal/dataset"
	"mldr/internal/store"
	"mldr/web/templates"
)

// shortID is how many characters of a data set's id tell equal names
// apart.
const shortID = 6

// DatasetNames names data sets on the pages (their list, the jobs list,
// the job and study pages, the analysis and study forms) so that equal
// names can be told apart: a name no other data set has stays as it is;
// each of several data sets of one name gets its upload time and the
// start of its id, "medical (uploaded 2024-05-01 14:03 UTC, id k3m2ab)".
// The time is what a person recognises; the id settles uploads in the
// same minute. The map is by id.
func DatasetNames(recs []store.DatasetRecord) map[string]string {
	count := map[string]int{}
	for _, r := range recs {
		count[r.Name]++
	}
	out := make(map[string]string, len(recs))
	for _, r := range recs {
		out[r.ID] = r.Name
		if count[r.Name] > 1 {
			out[r.ID] = fmt.Sprintf("%s (uploaded %s, id %s)", r.Name, FormatTime(r.CreatedAt), r.ID[:min(shortID, len(r.ID))])
		}
	}
	return out
}

// datasetNames are the names of every data set (DatasetNames); a listing
// that fails leaves each its record's name, or its id.
type datasetNames struct {
	b     *Builder
	names map[string]string
}

// datasetNames reads the data sets' names once, for a page that names
// several.
func (b *Builder) datasetNames() datasetNames {
	n := datasetNames{b: b}
	if recs, err := b.store.Datasets(); err == nil {
		n.names = DatasetNames(recs)
	}
	return n
}

// of is data set id's name, or its id when it has no record (it was
// deleted since).
func (n datasetNames) of(id string) string {
	if name, ok := n.names[id]; ok {
		return name
	}
	if n.names == nil {
		if rec, err := n.b.store.Dataset(id); err == nil {
			return rec.Name
		}
	}
	return id
}

// DatasetRows are the lines of the list of data sets, recs in their
// order: each named as DatasetNames names it, with its storage (dense
// for records made before sparse storage existed) and problem(id), what
// is wrong with its files ("" when nothing is).
func DatasetRows(recs []store.DatasetRecord, problem func(id string) string) []templates.DatasetRow {
	names := DatasetNames(recs)
	out := make([]templates.DatasetRow, 0, len(recs))
	for _, rec := range recs {
		out = append(out, templates.DatasetRow{
			ID: rec.ID, Name: names[rec.ID], FileName: rec.FileName, Kind: string(rec.Summary.Kind),
			Storage: string(cmp.Or(rec.Summary.Storage, dataset.StorageDense)),
			Created: FormatTime(rec.CreatedAt), Rows: rec.Summary.Rows, Features: rec.Summary.Features,
			Labels: rec.Summary.LabelCount, Problem: problem(rec.ID),
		})
	}
	return out
}
