package jobs

import "mldr/internal/dataset"

// RunLabelsOf are the labels of train and of test (nil: no test data set)
// (their rows counted by Y) as a job reading them now keeps them: for the results of jobs from
// before they kept their labels, whose data sets have not changed since.
// The values are copied; Gen is 0.
func RunLabelsOf(train, test *dataset.Dataset) *RunLabels {
	rows := func(ds *dataset.Dataset) int { n, _ := ds.Y.Dims(); return n }
	l := &RunLabels{Kind: train.Kind, Labels: train.Labels, Categories: train.Categories, TrainRows: rows(train)}
	q := len(train.Labels)
	sets := []*dataset.Dataset{train}
	if test != nil {
		l.TestRows = rows(test)
		sets = append(sets, test)
	}
	l.values = make([]float64, 0, (l.TrainRows+l.TestRows)*q)
	for _, ds := range sets {
		for i := range rows(ds) {
			l.values = append(l.values, ds.Y.RawRowView(i)[:q]...)
		}
	}
	return l
}
