package runcli

// usage is webapp run -help.
const usage = `Usage: webapp run [flags] SPEC.json [flags]

Runs a job or a study without a server, through the code the server's
workers run: the request is normalised and checked as POST /api/jobs
checks it (parameters against the data, memory admission), the data files
are read as uploads are read, and the same executor fits, evaluates and
writes the results. The result files a job's page offers are written into
a folder: metrics.json, label_results.csv, experiment.json and a folder per
method (projection.csv/.json/.npy, eigenvalues.json, projected.csv,
model.json); for a study metrics.json, comparison.json and .csv,
experiment.json and its tables for papers (comparison.tex, a LaTeX
fragment; comparison-standalone.tex, a document pdflatex compiles;
comparison.md), with the default metrics at the first d.

The spec is the API's job or study request plus the data files:

  {
    "name": "emotions-pca",
    "request": {"dataset": "emotions", "methods": ["pca", "mddmp"],
                "evaluate": {"classifier": "mlknn", "dims": [2, 4, 6]}},
    "data": {
      "emotions": {"file": "emotions.arff", "xml": "emotions.xml"}
    }
  }

  request   the body of POST /api/jobs (docs/API.md): dataset, test_dataset
            or datasets (a study) name data sets by the names of "data",
            or by the ids of -data-dir; methods, params, split, evaluate,
            preprocess as the API takes them
  data      NAME: {"file": PATH, "xml": PATH, "folds_file": PATH,
            "name": DISPLAY NAME, "options": {...}, "sha256": HEX}
            file is CSV, ARFF or libsvm; paths are relative to the spec's
            folder; options are the upload's (labels, label_prefix,
            label_count, label_xml, kind, missing, nominal, drop, format);
            sha256, when given, is the SHA-256 the file's bytes must have
  name      names the output folder (default: the spec file's name)

A job's experiment.json (GET /api/jobs/ID/experiment.json) is a spec: its
data name no files, so give them with --data; a file whose SHA-256 is not
the one recorded is refused:

  webapp run experiment.json --data emotions=emotions.arff

Flags:
  -out DIR               the output folder (default NAME-results), made with
                         its parents; it must not hold files
  -data NAME=FILE        the data file of data set NAME (the spec's name for
                         it, or its display name); repeatable; --data works
  -folds NAME=FILE       its predefined folds (fold,split,row); repeatable
  -data-dir DIR          a server's data directory: the request may name its
                         data sets by id (read only; the server must be
                         stopped, as it locks the directory)
  -max-job-memory SIZE   memory the job may use, as the server's flag (default:
                         half the machine's memory; 0: no limit) (env
                         MLDR_MAX_JOB_MEMORY)
  -max-cells N           rows × features the job may read (default 300000000)
                         (env MLDR_MAX_CELLS)
  -max-pairwise-rows N   rows lpp and kcplst may fit on (default 20000) (env
                         MLDR_MAX_PAIRWISE_ROWS)
  -help                  this text

Progress goes to standard output: a bar per phase on a terminal, else one
line per phase (read of each data file, check, load, fit and write of each
method, evaluate, write). Ctrl-C stops the run and writes nothing. The exit status is 0 when
the results are written; otherwise 1, with a sentence on standard error
saying what failed and where.
`
