package handlers

import (
	"bytes"
	"net/http"
	"path/filepath"
	"strings"

	"github.com/go-chi/chi/v5"

	"mldr/internal/jobs"
	"mldr/internal/views"
)

// apiStudyTable sends a study's table for papers, file one of
// views.StudyTableFiles, written from its comparison.json: ?metrics=a,b
// (or metrics=a&metrics=b) chooses the columns, d= / percent= / at= the
// d-choice as on the study's page. A job that has not succeeded answers
// 409, one on one data set 404, an option the study cannot honour 400.
func (h *handler) apiStudyTable(w http.ResponseWriter, r *http.Request, file string) {
	id := chi.URLParam(r, "id")
	// comparison.json's checks: the job exists, has succeeded, is a study.
	path, j, err := h.jobs.ResultPath(id, "", jobs.FileComparison)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	f, err := jobs.ReadComparison(path)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	q := r.URL.Query()
	sq, err := parseStudyQuery(q)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	o := views.StudyTableOptions{D: sq.D, Percent: sq.Percent}
	for _, v := range q["metrics"] {
		for m := range strings.SplitSeq(v, ",") {
			if m = strings.TrimSpace(m); m != "" {
				o.Metrics = append(o.Metrics, m)
			}
		}
	}
	t, err := views.StudyPaperTable(id, j.Request, f, o)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	var buf bytes.Buffer
	if err := views.WriteStudyTable(&buf, file, t); err != nil {
		h.fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", contentTypes[filepath.Ext(file)])
	w.Header().Set("Content-Disposition", attachment(h.downloadName(j, "", file)))
	_, _ = w.Write(buf.Bytes()) // a client gone away: nothing left to tell it
}
