package templates

import "mldr/internal/dataset"

// JobRow is one job in a list.
type JobRow struct {
	ID, Dataset, DatasetID, Methods, Status, Created, Duration, Phase string
	Progress                                                          float64
	Active, Done                                                      bool
}

// JobsView is the jobs page.
type JobsView struct {
	Page
	Jobs   []JobRow
	Notice string
	Error  string
}

// AnalyzeView is the new-analysis form of a data set.
type AnalyzeView struct {
	Page
	DatasetID, DatasetName string
	// Study lists the data sets of a study the form starts; empty for an
	// analysis of one data set (DatasetID).
	Study   []Link
	Summary dataset.Summary
	// ScaleHint suggests standardizing when one feature's scale dwarfs
	// the others'; "" for none.
	ScaleHint string
	Methods   []MethodChoice
	Labels    []string // for the rbf label kernel's explanation
	Form      AnalyzeForm
	Error     *FormError
}

// MethodChoice is one method in the form.
type MethodChoice struct {
	ID, Name, Summary, Paper, Space string
	Takes                           string // space-separated parameter names
	MaxDim                          int
	Checked, Disabled               bool
	DisabledWhy                     string
}

// AnalyzeForm holds the form's values (as typed, to show them again).
type AnalyzeForm struct {
	DimMode                                            string // "d", "thr" or "seed" (neither sent: seed 003's d′ where it applies)
	D, Thr, Beta, Gamma, Lambda, Ridge, LabelKernel, K string
	Normalize                                          string // "unit" or "b"
	// Kernel, Degree, Coef0: the feature kernel of kpca and kmddm;
	// Landmarks, LandmarkSampling, LandmarkSeed: their Nyström landmarks.
	Kernel, Degree, Coef0                     string
	Landmarks, LandmarkSampling, LandmarkSeed string
	Alpha, Oversample, PowerIters, Iterations string // faie's α, rembrandt's sketch, leml's sweeps
	// MDSKind, Starts, MDSSeed: mds's kind and, for metric and nonmetric,
	// its random starts and their seed (the API's seed; the form's "seed"
	// is the split's).
	MDSKind, Starts, MDSSeed                         string
	Classifier, SplitKind, TestFraction, Folds, Seed string
	GridMode, Grid, GridOf                           string
	EvalK, EvalLambda                                string
	EvalC, EvalEps                                   string // the svm's c and eps
	PsA, PsB                                         string // the propensity model's A and B (multi-label data)
	Recall                                           string // the k-NN vote's neighbour search recall (multi-label data)
	Baseline                                         string // "with" or "without" the baseline ori (not in a study)
	Preprocess                                       string // none, standardize or minmax
	HasFolds                                         bool
	// SeedDim is seed 003's d′ = ΣK_j − q of multi-dimensional data as
	// the form shows it ("6"; for a study "6", or "4 to 12" when the data
	// sets differ); "" for multi-label data, which do not offer it.
	SeedDim string
	// RankBaseline is a study's "rank" (ori ranked with the methods, the
	// default) or "show" (shown, left out of the ranks).
	RankBaseline string
}

// JobView is a job's page.
type JobView struct {
	Page
	Job     JobHeader
	Results *ResultsView // nil until the job has succeeded
	Notice  string
}

// JobHeader is the state of a job and what it asked for.
type JobHeader struct {
	ID, Status, Phase, Message, Error string
	DatasetID, DatasetName            string
	TestDatasetName                   string
	// Study lists a study's data sets; empty for a job on one data set.
	Study                      []Link
	Methods                    []string
	Settings                   []Setting
	Progress                   float64
	Created, Started, Finished string // RFC 3339, for the elapsed-time script
	Elapsed                    string
	// Phases says where a finished run's time went, by phase.
	Phases string
	Active bool
	Notes  []string
	// ScaleHint suggests standardizing when one feature's scale dwarfs
	// the others' and the job used the features as given; "" for none.
	ScaleHint string
}

// Link is a data set (or other item) to link to by id.
type Link struct{ ID, Name string }

// Setting is one line of a job's settings.
type Setting struct{ Name, Value string }

// ResultsView is a succeeded job's results.
type ResultsView struct {
	JobID string
	// Study is a study's comparison over its data sets; nil for a job on
	// one data set. A study's curves and tables are those of the data set
	// Study.Dataset.
	Study   *StudyView
	Methods []MethodView
	// Controls of the projections (shared by every method).
	X, Y          int
	MaxComponent  int
	Colour        string
	ColourOptions []Option
	Log           bool
	Metric        string
	MetricOptions []Option
	// DAxis is the curves' d axis: "linear" or "log".
	DAxis string
	// OneD says every method was evaluated at one d: the curves are a dot
	// plot, with no d axis to choose.
	OneD            bool
	Curves          *FigureView
	Table           *MetricsTable
	Times           *TimesTable // nil for jobs evaluated before times were kept
	MetricsDownload string
	// LabelResults links the per-label results page; empty when the job
	// has none (no evaluation, multi-dimensional data, a study).
	LabelResults string
	// LabelCount is the number of labels it lists.
	LabelCount int
	// Experiment links the job's experiment.json (what it ran, to run it
	// again with webapp run); empty for results written before it existed.
	Experiment string
	Notes      []string
}

// MethodView is one method's results.
type MethodView struct {
	ID, Name, Paper, Space string
	D                      int
	Energy                 float64
	Rank                   int
	// RankAtLeast says Rank is a lower bound (only the leading eigenpairs
	// were computed, and every one counts): shown "rank ≥ 10".
	RankAtLeast bool
	// Stress, for metric and nonmetric mds, is their stress ("stress-1
	// 0.2051, raw 1.13e+07"); "" for the others.
	Stress string
	// Colour is the method's colour in the page's curves (CSS).
	Colour               string
	Spectrum, Projection *FigureView
	Downloads            []Download
	// SpaceNote, for a label-space method, says that its scatter shows
	// label codes and what they are; "" for a feature-space one.
	SpaceNote string
}

// FigureView is a plot inline, with a text alternative and the addresses
// of its files: PNG, SVG, PDF, and PDF sized for a paper's column and page.
type FigureView struct {
	// Title names the figure in its links' accessible names.
	ID, Title, SVG, Alt, Meta string
	PNG, SVGURL, PDF          string
	PDFColumn, PDFPage        string
	// Note, without SVG, says why the data allow no such plot.
	Note string
}

// Download is a result file.
type Download struct{ Name, URL, Description string }

// Option is a choice in a select.
type Option struct{ Value, Text string }

// MetricsTable is the numbers behind the metric curves: one row per method
// and d, mean ± std over folds.
type MetricsTable struct {
	Metric  string
	Columns []string // method names
	Rows    []MetricsRow
	Best    string // "lowest" or "highest"
	// Decoders says which methods predict their labels by their own
	// decoder, not by the classifier ("": none).
	Decoders string
}

// TimesTable is how long each method took in the evaluation: one row per
// method (ori last, as in the metrics table), durations already written
// for people.
type TimesTable struct {
	Rows []TimesRow
}

// TimesRow is one method's times: Fit is the mean fit on a fold's
// training part ("—" for ori), Eval the mean evaluation at one d on one
// fold, Total the evaluation's whole time for the method.
type TimesRow struct {
	Method, Fit, Eval, Total string
}

// MetricsRow is one d.
type MetricsRow struct {
	D     int
	Cells []string
}

// CompareView compares finished jobs side by side.
type CompareView struct {
	Page
	Jobs []CompareJob
	// Choices are the finished jobs to pick from, grouped by data set.
	Choices []ChoiceGroup
	// ChoiceDatasets and ChoiceMethods are what the picker's filters
	// offer: the data sets and the methods of the Choices, sorted.
	ChoiceDatasets, ChoiceMethods []string
	Metric                        string
	Options                       []Option // the metrics every chosen job with an evaluation reported
	Error                         string
	// Warnings say what makes the jobs' numbers not comparable (other
	// data sets, other splits) or why the metric shown is not the chosen.
	Warnings []string
	// Linked says the jobs use the same data set (and test set), so that
	// their interactive views are linked by row number across the jobs.
	Linked bool
}

// ChoiceGroup is the finished jobs of one data set in the compare
// page's picker, newest first.
type ChoiceGroup struct {
	Dataset string
	Jobs    []Choice
}

// Choice is a finished job the compare page offers.
type Choice struct {
	ID, Methods, Created string
	// MethodIDs are the job's methods, space-separated, for the filter;
	// CreatedUnix is when it was created, in Unix seconds.
	MethodIDs   string
	CreatedUnix int64
}

// CompareJob is one job of the compare page: its curves, and its
// methods' spectra and projections.
type CompareJob struct {
	ID, Title, Dataset string
	Spectra            []*FigureView
	Projections        []*FigureView
	// Methods are the methods of Projections, in their order: the
	// interactive views' slots are named by them; Names are their names.
	Methods, Names []string
	// SpaceNotes are the methods' SpaceNote, in their order.
	SpaceNotes []string
	Curves     *FigureView
}

// StudyView is a study's comparison of its methods over its data sets at
// one metric and d-choice.
type StudyView struct {
	Metric, Better, Choice string
	// D and Percent are the query's values of the chosen d-choice.
	D, Percent    string
	Alpha         string
	MetricOptions []Option
	ChoiceOptions []StudyChoice
	// Summary says what the Friedman and Iman–Davenport tests found.
	Summary   string
	Table     StudyTable
	CD, Ranks *FigureView
	Pairs     []StudyPair
	PairedT   []StudyPairedT
	Notes     []string
	Downloads []Download
	// Datasets are the study's data sets, to choose whose curves are shown.
	Datasets []Option
	Dataset  string
	// RankCaveats say when Friedman's and Nemenyi's tests can say little
	// at this size, WilcoxonCaveat the smallest p-value the pairs' test
	// can give.
	RankCaveats    []string
	WilcoxonCaveat string
}

// StudyChoice is one d-choice of a study.
type StudyChoice struct {
	D, Percent, Text string
	Selected         bool
}

// StudyTable is the data sets × methods table of a comparison.
type StudyTable struct {
	Caption string
	Methods []string
	Rows    []StudyRow
	Ranks   []StudyCell
}

// StudyRow is one data set's scores.
type StudyRow struct {
	Dataset, DatasetID string
	Cells              []StudyCell
}

// StudyCell is a score (or rank), with its standard deviation ("± 0.0123")
// when there is one; Best marks the best of its row.
type StudyCell struct {
	Text, Std string
	Best      bool
}

// StudyPair is two methods compared over the data sets: A's wins, ties
// and losses against B, Wilcoxon's p and Holm's adjustment of it.
type StudyPair struct {
	A, B                         string
	Wins, Ties, Losses, Datasets int
	Wilcoxon, Holm               string
	Significant                  bool
}

// StudyPairedT is the paired t-tests over one data set's folds.
type StudyPairedT struct {
	Dataset string
	Folds   int
	Pairs   []StudyTPair
}

// StudyTPair is one paired t-test.
type StudyTPair struct {
	A, B, T, P  string
	Significant bool
}

// LabelResultsView is a job's per-label results page: one page of its
// labels, found by name and sorted as asked, with each method's precision,
// recall or F1 on them.
type LabelResultsView struct {
	Page
	JobID, Dataset string
	// Search, Sort, Order and Metric are the page's choices, with the
	// options of the last three.
	Search, Sort, Order, Metric              string
	SortOptions, OrderOptions, MetricOptions []Option
	// MetricName is Metric in words ("F1", "recall"), MetricHead as a
	// column's heading begins ("F1", "Recall").
	MetricName, MetricHead string
	Cells                  []LabelCellHead
	Rows                   []LabelResultRow
	// Total is the number of labels, Matching those the search finds;
	// From and To the 1-based range shown.
	Total, Matching, From, To int
	PageNumber, Pages         int
	PrevURL, NextURL          string
	Download, JobURL          string
}

// LabelCellHead is a column of the per-label results: a method (its name
// as pages show it) at one d, and its key ("pca_d100").
type LabelCellHead struct {
	Key, Method string
	D           int
}

// LabelResultRow is one label's line.
type LabelResultRow struct {
	Name         string
	Rows, Tested int
	Values       []LabelValue
}

// LabelValue is one cell's value of the chosen metric, as text ("—" when
// undefined), and its counts in words for the title.
type LabelValue struct {
	Text, Title string
	Undefined   bool
}

// methodFacts is the line beside a method's name on a job's page: d and,
// for mds by SMACOF, its stress, otherwise the energy d keeps and the rank.
func methodFacts(m MethodView) string {
	if m.Stress != "" {
		return "d = " + itoa(m.D) + ", " + m.Stress
	}
	return "d = " + itoa(m.D) + ", energy " + percent(m.Energy) + ", rank " + rankText(m.Rank, m.RankAtLeast)
}
