package jobs

import "mldr/internal/dataset"

// RunLabelsOf are the labels of train and of test (nil: no test data set)
// (their rows counted by Y) as a job reading them now keeps them: for the results of jobs from
// before they kept their labels, whose data sets have not changed since.
// The values are copied, in RunLabels' compact form; Gen is 0.
func RunLabelsOf(train, test *dataset.Dataset) *RunLabels {
	rows := func(ds *dataset.Dataset) int { n, _ := ds.LabelDims(); return n }
	l := &RunLabels{Kind: train.Kind, Labels: train.Labels.Strings(), Categories: train.Categories, TrainRows: rows(train)}
	sets := []*dataset.Dataset{train}
	if test != nil {
		l.TestRows = rows(test)
		sets = append(sets, test)
	}
	l.start = make([]int, 1, l.TrainRows+l.TestRows+1)
	size := 0
	for _, ds := range sets {
		size += codesOf(ds, l.Kind)
	}
	l.codes = make([]int32, 0, size)
	for _, ds := range sets {
		l.appendDataset(ds)
	}
	return l
}

// codesOf counts the codes RunLabels holds for ds's labels: its ones
// (multi-label), or a class index per row and variable.
func codesOf(ds *dataset.Dataset, kind dataset.Kind) int {
	n, q := ds.LabelDims()
	if kind == dataset.MultiDim {
		return n * q
	}
	return int(ds.LabelOnes())
}
