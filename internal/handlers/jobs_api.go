package handlers

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/go-chi/chi/v5"

	"mldr/internal/analysis"
	"mldr/internal/dataset"
	"mldr/internal/export"
	"mldr/internal/formparts"
	"mldr/internal/jobs"
	"mldr/internal/views"
)

// JobService is what the handlers need of the job runner.
type JobService interface {
	Submit(req jobs.Request) (jobs.Job, error)
	Get(id string) (jobs.Job, error)
	List() ([]jobs.Job, error)
	Cancel(id string) (jobs.Job, error)
	Rerun(id string) (jobs.Job, error)
	Delete(id string) error
	Subscribe(id string) (<-chan jobs.Job, func(), error)
	ResultPath(id, method, file string) (string, jobs.Job, error)
	Results(id string) (*jobs.Results, error)
	Projected(id, method string, cols ...int) (*jobs.Projected, error)
	// DeleteDataset deletes a data set; withJobs deletes the jobs that
	// use it with it (jobs.Service.DeleteDataset), and without it those
	// jobs refuse it (409).
	DeleteDataset(id string, withJobs bool) error
	// UseOf says how the jobs use a data set.
	UseOf(id string) (jobs.DatasetUse, error)
	// RunLabels returns the labels a job ran with; nil for results
	// from before jobs kept them.
	RunLabels(id string) (*jobs.RunLabels, error)
	// CheckRelabel refuses (409) to relabel a data set a queued or
	// running job uses.
	CheckRelabel(id string) error
	Limits() jobs.Limits
	// RowErrorsOf reads the per-row errors of the job's classifier, the
	// values of the records keep accepts.
	RowErrorsOf(id string, keep func(jobs.RowErrorsRecord) bool) (*jobs.RowErrorsFile, error)
	// LabelResults reads a job's per-label results (jobs.FileLabelResults).
	LabelResults(id string) (*jobs.LabelResultsFile, error)
	// The explorer's named selections of a job's rows.
	SaveSelection(id string, sel jobs.Selection) error
	Selections(id string) ([]jobs.Selection, error)
	DeleteSelection(id, name string) error
}

// maxJobBody bounds the JSON body of POST /api/jobs.
const maxJobBody = 64 << 10

func (h *handler) apiSubmitJob(w http.ResponseWriter, r *http.Request) {
	var req jobs.Request
	if err := readJSON(r, &req, jobBody); err != nil {
		h.fail(w, r, err)
		return
	}
	j, err := h.jobs.Submit(req)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.log.Info("job queued", "id", j.ID, "methods", j.Request.MethodIDs(), "dataset", j.Request.Dataset)
	w.Header().Set("Location", "/api/jobs/"+j.ID)
	writeJSON(w, http.StatusAccepted, map[string]any{"id": j.ID, "status": j.Status})
}

func (h *handler) apiListJobs(w http.ResponseWriter, r *http.Request) {
	list, err := h.jobs.List()
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if list == nil {
		list = []jobs.Job{} // an array, never null
	}
	writeJSON(w, http.StatusOK, list)
}

func (h *handler) apiGetJob(w http.ResponseWriter, r *http.Request) {
	j, err := h.jobs.Get(chi.URLParam(r, "id"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, j)
}

func (h *handler) apiCancelJob(w http.ResponseWriter, r *http.Request) {
	j, err := h.jobs.Cancel(chi.URLParam(r, "id"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusAccepted, j)
}

// apiRerunJob queues a new job with the request of a finished one.
func (h *handler) apiRerunJob(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "id")
	j, err := h.jobs.Rerun(id)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.log.Info("job queued again", "id", j.ID, "from", id, "methods", j.Request.MethodIDs(), "dataset", j.Request.Dataset)
	w.Header().Set("Location", "/api/jobs/"+j.ID)
	writeJSON(w, http.StatusAccepted, map[string]any{"id": j.ID, "status": j.Status})
}

func (h *handler) apiDeleteJob(w http.ResponseWriter, r *http.Request) {
	if err := h.jobs.Delete(chi.URLParam(r, "id")); err != nil {
		h.fail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// sseHeartbeat keeps idle event streams open through proxies.
const sseHeartbeat = 15 * time.Second

// apiJobEvents streams the job as Server-Sent Events: its state on every
// change, until it finishes or the client leaves.
func (h *handler) apiJobEvents(w http.ResponseWriter, r *http.Request) {
	ch, unsubscribe, err := h.jobs.Subscribe(chi.URLParam(r, "id"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	defer unsubscribe()
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Time{}) // a stream outlives the server's write timeout
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	tick := time.NewTicker(sseHeartbeat)
	defer tick.Stop()
	for {
		select {
		case j, ok := <-ch:
			if !ok {
				return
			}
			b, _ := json.Marshal(j)
			if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
				return
			}
			if err := rc.Flush(); err != nil {
				return
			}
			if j.Status.Terminal() {
				return
			}
		case <-tick.C:
			if _, err := io.WriteString(w, ": keep-alive\n\n"); err != nil || rc.Flush() != nil {
				return
			}
		case <-r.Context().Done():
			return
		}
	}
}

// contentTypes of the result files.
var contentTypes = map[string]string{".csv": "text/csv; charset=utf-8", ".json": "application/json", ".npy": "application/octet-stream",
	".tex": "text/x-tex; charset=utf-8", ".md": "text/markdown; charset=utf-8"}

// apiJobResult sends a result file, named after the data set, the method
// and d; a study's tables for papers are written on request
// (apiStudyTable).
func (h *handler) apiJobResult(w http.ResponseWriter, r *http.Request) {
	file := chi.URLParam(r, "file")
	if slices.Contains(views.StudyTableFiles, file) {
		h.apiStudyTable(w, r, file)
		return
	}
	path, j, err := h.jobs.ResultPath(chi.URLParam(r, "id"), r.URL.Query().Get("method"), file)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		h.fail(w, r, notFound("this result does not exist for this method (mds has no projection)"))
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		h.fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", contentTypes[filepath.Ext(file)])
	w.Header().Set("Content-Disposition", attachment(h.downloadName(j, filepath.Dir(path), file)))
	http.ServeContent(w, r, file, st.ModTime(), f)
}

// downloadName is "<data set>_<method>_d<d>_<file>", for metrics
// "<data set>_metrics.json", for a study's files "study-<job>_<file>";
// dir is the result's directory.
func (h *handler) downloadName(j jobs.Job, dir, file string) string {
	name := j.Request.Dataset
	if rec, err := h.store.Dataset(j.Request.Dataset); err == nil {
		name = rec.Name
	}
	if j.Request.Study() {
		return fmt.Sprintf("study-%s_%s", j.ID[:min(8, len(j.ID))], file)
	}
	if file == jobs.FileMetrics || file == jobs.FileLabelResults || file == jobs.FileExperiment {
		return name + "_" + file
	}
	if m, err := jobs.ReadManifest(dir); err == nil {
		return fmt.Sprintf("%s_%s_d%d_%s", name, m.Method, m.D, file)
	}
	return name + "_" + file
}

// apiTransform projects the rows of an uploaded file (same feature columns)
// with a job's fitted model and answers them as CSV.
func (h *handler) apiTransform(w http.ResponseWriter, r *http.Request) {
	path, _, err := h.jobs.ResultPath(chi.URLParam(r, "id"), r.URL.Query().Get("method"), jobs.FileModel)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	m, err := jobs.ReadManifest(filepath.Dir(path))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if len(m.Projection) == 0 || m.Space != "feature" {
		h.fail(w, r, &httpError{status: http.StatusUnprocessableEntity, msg: noTransform(m.Method, m.Space)})
		return
	}
	mr, err := formparts.FromRequest(r)
	if err != nil {
		h.fail(w, r, badRequest("file", "send the rows as multipart/form-data with the file in a field named \"file\""))
		return
	}
	for {
		part, err := mr.NextPart()
		if err != nil {
			h.fail(w, r, bodyError(badRequest("file", "the upload has no field named \"file\"")))
			return
		}
		if part.FormName() != "file" {
			part.Close()
			continue
		}
		claim := h.memory.Claim("these rows")
		x, err := dataset.LoadFeatures(part, m.Features, claim.Grow)
		part.Close()
		claim.Release()
		if err != nil {
			h.fail(w, r, err)
			return
		}
		z, err := m.Transform(x)
		if err != nil {
			h.fail(w, r, err)
			return
		}
		w.Header().Set("Content-Type", "text/csv; charset=utf-8")
		w.Header().Set("Content-Disposition", attachment(m.Dataset.Name+"_"+m.Method+"_transformed.csv"))
		if err := export.WriteMatrixCSV(w, nil, export.ComponentNames(m.D), "", z); err != nil {
			h.log.Warn("sending transformed rows", "err", err)
		}
		return
	}
}

// noTransform says why method has no projection of the features for the
// transform to apply to new rows.
func noTransform(method string, space analysis.Space) string {
	if d, ok := analysis.Lookup(method); ok && d.Transductive {
		return fmt.Sprintf("%s is transductive: it places only the rows it was fitted on (their coordinates are its projected rows) "+
			"and has no projection to apply to new rows; to place them, add them to the data and run %s again", method, method)
	}
	if space == analysis.LabelSpace {
		return fmt.Sprintf("%s reduces the label space: its projection applies to label vectors, not to the features of new rows", method)
	}
	return fmt.Sprintf("%s has no projection of the features to apply to new rows", method)
}
