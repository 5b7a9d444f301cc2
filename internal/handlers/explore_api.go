package handlers

import (
	"encoding/binary"
	"encoding/csv"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"mldr/internal/dataset"
	"mldr/internal/evaluate"
	"mldr/internal/explore"
	"mldr/internal/export"
	"mldr/internal/jobs"
	"mldr/internal/views"
)

// The explorer's endpoints: what the page's interactive scatter reads of a
// succeeded job's rows (docs/API.md, "Explore").

// maxSelectionBody bounds the JSON of a selection: a million row numbers.
const maxSelectionBody = 16 << 20

// exploreMethod is a succeeded job's method (?method=, default the first)
// and the view of its rows.
type exploreMethod struct {
	res  *jobs.Results
	m    jobs.MethodResult
	view *explore.View
}

func (h *handler) exploreMethod(id, method string) (*exploreMethod, error) {
	res, err := h.jobs.Results(id)
	if err != nil {
		return nil, err
	}
	if res.Job.Status != jobs.Succeeded {
		return nil, &httpError{status: http.StatusConflict, msg: fmt.Sprintf("job %s has %s; its rows can be explored once it has succeeded", id, res.Job.Status)}
	}
	if len(res.Methods) == 0 {
		return nil, notFound("job %s has no projected rows to explore (a study compares methods over data sets; open one of its data sets' jobs)", id)
	}
	if method == "" {
		method = res.Methods[0].Method
	}
	m, err := methodResult(res, method)
	if err != nil {
		return nil, err
	}
	v, err := h.views.Get(id+"/"+m.Method, func() (*explore.View, error) {
		run, err := h.jobs.RunLabels(id)
		if err != nil {
			return nil, err
		}
		if run == nil {
			return nil, &views.Undrawable{Msg: fmt.Sprintf("job %s ran before jobs kept the labels they ran with, so its rows cannot be explored; run it again", id)}
		}
		p, err := h.jobs.Projected(id, m.Method, 0)
		if err != nil {
			return nil, err
		}
		v, err := explore.NewView(p, run)
		if err != nil {
			return nil, fmt.Errorf("job %s, %s: %w", id, m.Method, err)
		}
		return v, nil
	})
	if err != nil {
		return nil, err
	}
	return &exploreMethod{res: res, m: m, view: v}, nil
}

// exploreMeta is GET /api/jobs/{id}/explore.
type exploreMeta struct {
	Rows      int               `json:"rows"`
	Kind      dataset.Kind      `json:"kind"`
	Labels    []string          `json:"labels"`
	Methods   []exploreMethodJS `json:"methods"`
	Colours   []explore.Colour  `json:"colours"`
	Features  []string          `json:"features"`
	LabelSets []labelSetJS      `json:"label_sets"`
}

type exploreMethodJS struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	D      int    `json:"d"`
	Space  string `json:"space"`
	Colour string `json:"colour"`
	Rows   int    `json:"rows"`
}

type labelSetJS struct {
	Labels []string `json:"labels"`
	Count  int      `json:"count"`
}

func (h *handler) apiExplore(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "id")
	em, err := h.exploreMethod(id, "")
	if err != nil {
		h.fail(w, r, err)
		return
	}
	meta := exploreMeta{Rows: em.view.Rows(), Kind: em.view.Kind, Labels: em.view.Names, Colours: em.view.Colours()}
	order := em.res.Job.Request.MethodIDs()
	for _, m := range em.res.Methods {
		rows := em.view.Rows()
		if m.Method != em.m.Method {
			// The view the page asks for next, kept in the cache.
			other, err := h.exploreMethod(id, m.Method)
			if err != nil {
				h.fail(w, r, err)
				return
			}
			rows = other.view.Rows()
		}
		meta.Methods = append(meta.Methods, exploreMethodJS{ID: m.Method, Name: views.MethodName(m.Method), D: m.Eigen.D, Space: string(m.Manifest.Space),
			Colour: views.ColourHex(order, m.Method), Rows: rows})
	}
	meta.Features = em.m.Manifest.Features
	if req := em.res.Job.Request; req.Evaluate != nil && req.Evaluate.Classifier != evaluate.ClassifierNone {
		errs, err := h.jobs.RowErrorsOf(id, func(jobs.RowErrorsRecord) bool { return false })
		if status, _, _ := jobs.Status(err); err != nil && status != http.StatusNotFound {
			h.fail(w, r, err)
			return
		}
		if err == nil {
			meta.Colours = append(meta.Colours, explore.ErrorColours(errs)...)
		}
	}
	for _, c := range meta.Colours {
		if c.Key != "set" {
			continue
		}
		for i, s := range c.Categories {
			meta.LabelSets = append(meta.LabelSets, labelSetJS{Labels: setLabels(s), Count: c.Counts[i]})
		}
	}
	writeJSON(w, http.StatusOK, meta)
}

// errorValues are the per-row errors under key "error:KIND:METHOD:D", in
// the order of the view's rows.
func (h *handler) errorValues(em *exploreMethod, key string) ([]float32, error) {
	parts := strings.Split(key, ":")
	d, err := strconv.Atoi(parts[len(parts)-1])
	if len(parts) != 4 || (parts[1] != "hamming" && parts[1] != "exact") || err != nil {
		return nil, badRequest("of", "error values are error:hamming:METHOD:D or error:exact:METHOD:D, not %q", key)
	}
	method := parts[2]
	f, err := h.jobs.RowErrorsOf(em.res.Job.ID, func(r jobs.RowErrorsRecord) bool { return r.Method == method && r.D == d })
	if err != nil {
		return nil, err
	}
	rec, ok := f.Find(method, d)
	if !ok {
		return nil, badRequest("of", "job %s evaluated no %s at d = %d; its error values are listed by GET /api/jobs/%s/explore", em.res.Job.ID, method, d, em.res.Job.ID)
	}
	if f.Rows != em.view.Rows() {
		return nil, badRequest("method", "the per-row errors are in the order of the evaluated methods' rows, and %s has other rows; ask with another method", em.m.Method)
	}
	if parts[1] == "hamming" {
		return rec.Hamming, nil
	}
	return rec.Exact, nil
}

// setLabels splits a label set's name ("a, b"; "none") into its labels.
func setLabels(s string) []string {
	if s == "none" {
		return []string{}
	}
	return strings.Split(s, ", ")
}

// sendFloats answers float32 little-endian values with their count (and
// span, when given).
func sendFloats(w http.ResponseWriter, rows int, x []float32, span bool) {
	b := make([]byte, 4*len(x))
	for i, v := range x {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Rows", strconv.Itoa(rows))
	if span {
		lo, hi := explore.Span(x)
		w.Header().Set("X-Min", strconv.FormatFloat(lo, 'g', -1, 64))
		w.Header().Set("X-Max", strconv.FormatFloat(hi, 'g', -1, 64))
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	_, _ = w.Write(b)
}

// apiPoints is GET /api/jobs/{id}/points?method=M&x=1&y=2: the (x, y) of
// every projected row as float32 pairs.
func (h *handler) apiPoints(w http.ResponseWriter, r *http.Request) {
	id, q := chi.URLParam(r, "id"), r.URL.Query()
	em, err := h.exploreMethod(id, q.Get("method"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	var xy [2]int
	for k, name := range []string{"x", "y"} {
		xy[k] = k + 1
		if s := q.Get(name); s != "" {
			c, err := strconv.Atoi(s)
			if err != nil || c < 1 || c > em.m.Eigen.D {
				h.fail(w, r, badRequest(name, "%s must be a component of %s, a whole number from 1 to its d = %d, not %q", name, em.m.Method, em.m.Eigen.D, s))
				return
			}
			xy[k] = c
		}
	}
	if em.m.Eigen.D == 1 && q.Get("y") == "" {
		xy[1] = 1
	}
	p, err := h.jobs.Projected(id, em.m.Method, xy[0]-1, xy[1]-1)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	out := make([]float32, 0, 2*len(p.Coords))
	for _, c := range p.Coords {
		out = append(out, float32(c[0]), float32(c[1]))
	}
	sendFloats(w, len(p.Coords), out, false)
}

// apiValues is GET /api/jobs/{id}/values?of=KEY&method=M: a value per row.
func (h *handler) apiValues(w http.ResponseWriter, r *http.Request) {
	id, q := chi.URLParam(r, "id"), r.URL.Query()
	em, err := h.exploreMethod(id, q.Get("method"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	key := q.Get("of")
	var x []float32
	if strings.HasPrefix(key, "error:") {
		x, err = h.errorValues(em, key)
	} else if name, ok := strings.CutPrefix(key, "feature:"); ok {
		train, test, err2 := h.exploreData(em)
		if err2 != nil {
			h.fail(w, r, err2)
			return
		}
		x, err = em.view.Feature(train, test, name)
	} else {
		x, err = em.view.Values(key)
	}
	if ke := (*explore.KeyError)(nil); errors.As(err, &ke) {
		err = badRequest("of", "%s", ke.Msg)
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	sendFloats(w, len(x), x, true)
}

// exploreData loads the job's training and test data sets for their
// features, refusing (409) when they were relabelled since the job ran:
// their feature columns may be others.
func (h *handler) exploreData(em *exploreMethod) (train, test *dataset.Dataset, err error) {
	req := em.res.Job.Request
	rec, err := h.store.Dataset(req.Dataset)
	if err != nil {
		return nil, nil, err
	}
	if rec.Gen != em.view.Gen {
		return nil, nil, &httpError{status: http.StatusConflict, msg: fmt.Sprintf(
			"the labels of data set %s changed after job %s ran, so its feature columns may be others; run the job again to see its rows' features", rec.Name, em.res.Job.ID)}
	}
	if train, err = h.store.LoadDataset(req.Dataset); err != nil {
		return nil, nil, err
	}
	if req.TestDataset != "" {
		if test, err = h.store.LoadDataset(req.TestDataset); err != nil {
			return nil, nil, err
		}
	}
	return train, test, nil // dense or sparse, as stored: explore reads either
}

// selectionRequest is the body of POST /api/jobs/{id}/selection and
// /selections.
type selectionRequest struct {
	Method string `json:"method"`
	Name   string `json:"name"`
	Rows   []int  `json:"rows"`
}

// readSelection reads the body of POST …/selection (selectionBody) or
// …/selections (namedSelectionBody) and the rows it names.
func (h *handler) readSelection(w http.ResponseWriter, r *http.Request, body jsonBody) (*exploreMethod, selectionRequest, []int, bool) {
	var req selectionRequest
	if err := readJSON(r, &req, body); err != nil {
		h.fail(w, r, err)
		return nil, req, nil, false
	}
	em, err := h.exploreMethod(chi.URLParam(r, "id"), req.Method)
	if err != nil {
		h.fail(w, r, err)
		return nil, req, nil, false
	}
	pos, err := em.view.Positions(req.Rows)
	if err != nil {
		h.fail(w, r, &httpError{status: http.StatusUnprocessableEntity, field: "rows", msg: err.Error()})
		return nil, req, nil, false
	}
	return em, req, pos, true
}

// apiSelection is POST /api/jobs/{id}/selection: which labels the rows
// are enriched in.
func (h *handler) apiSelection(w http.ResponseWriter, r *http.Request) {
	em, _, pos, ok := h.readSelection(w, r, selectionBody)
	if !ok {
		return
	}
	writeJSON(w, http.StatusOK, explore.Enrich(em.view.Labels(), pos, maxSelectionSets))
}

// maxSelectionSets bounds the label sets a selection's statistics list.
const maxSelectionSets = 20

// apiRow is GET /api/jobs/{id}/rows/{row}?method=M&k=10: a row and its
// nearest rows in the projection and in the original features.
func (h *handler) apiRow(w http.ResponseWriter, r *http.Request) {
	id, q := chi.URLParam(r, "id"), r.URL.Query()
	em, err := h.exploreMethod(id, q.Get("method"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	k, err := queryInt(q, "k", 10, 1, 100)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	n, err := strconv.Atoi(chi.URLParam(r, "row"))
	if err != nil {
		h.fail(w, r, badRequest("row", "a row is a whole number, not %q", chi.URLParam(r, "row")))
		return
	}
	pos, err := em.view.Positions([]int{n})
	if err != nil {
		h.fail(w, r, notFound("%s", err))
		return
	}
	i := pos[0]
	p, err := h.jobs.Projected(id, em.m.Method)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	out := struct {
		Row        int                 `json:"row"`
		Part       string              `json:"part"`
		Fold       *int                `json:"fold"`
		Labels     []string            `json:"labels"`
		Projection []explore.Neighbour `json:"projection"`
		Original   []explore.Neighbour `json:"original"`
		Note       string              `json:"note,omitempty"`
	}{Row: n, Part: em.view.Part(i), Labels: em.view.LabelNames(i)}
	if em.view.Fold != nil && em.view.Fold[i] > 0 {
		f := int(em.view.Fold[i])
		out.Fold = &f
	}
	out.Projection = em.view.Nearest(i, k, func(j int) []float64 { return p.Coords[j] })
	if train, test, err := h.exploreData(em); err == nil {
		rows, err := em.view.Features(train, test)
		if err != nil {
			h.fail(w, r, err)
			return
		}
		out.Original = em.view.NearestFeatures(i, k, rows)
	} else {
		out.Note = err.Error()
	}
	writeJSON(w, http.StatusOK, out)
}

// apiSelections is GET /api/jobs/{id}/selections: the selections kept with
// the job.
func (h *handler) apiSelections(w http.ResponseWriter, r *http.Request) {
	sels, err := h.jobs.Selections(chi.URLParam(r, "id"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	type item struct {
		Name      string    `json:"name"`
		Rows      int       `json:"rows"`
		CreatedAt time.Time `json:"created_at"`
	}
	out := struct {
		Selections []item `json:"selections"`
	}{Selections: []item{}}
	for _, s := range sels {
		out.Selections = append(out.Selections, item{Name: s.Name, Rows: len(s.Rows), CreatedAt: s.CreatedAt})
	}
	writeJSON(w, http.StatusOK, out)
}

// apiSaveSelection is POST /api/jobs/{id}/selections: keep a named
// selection with the job (201; the same name replaces it).
func (h *handler) apiSaveSelection(w http.ResponseWriter, r *http.Request) {
	_, req, _, ok := h.readSelection(w, r, namedSelectionBody)
	if !ok {
		return
	}
	id := chi.URLParam(r, "id")
	rows := slices.Clone(req.Rows)
	slices.Sort(rows)
	sel := jobs.Selection{Name: req.Name, Rows: rows, CreatedAt: time.Now().UTC()}
	if err := h.jobs.SaveSelection(id, sel); err != nil {
		h.fail(w, r, err)
		return
	}
	w.Header().Set("Location", "/api/jobs/"+id+"/selections/"+url.PathEscape(sel.Name)+".csv")
	writeJSON(w, http.StatusCreated, map[string]any{"name": sel.Name, "rows": len(sel.Rows), "created_at": sel.CreatedAt})
}

// apiSelectionFile is GET /api/jobs/{id}/selections/{name}.csv (the row
// numbers) and DELETE /api/jobs/{id}/selections/{name}.
func (h *handler) apiSelectionFile(w http.ResponseWriter, r *http.Request) {
	id, name := chi.URLParam(r, "id"), chi.URLParam(r, "name")
	// chi routes on the raw path when it has escapes (a name with "(" as
	// browsers escape it): the parameter is then still escaped.
	if raw, err := url.PathUnescape(name); err == nil {
		name = raw
	}
	if r.Method == http.MethodDelete {
		if err := h.jobs.DeleteSelection(id, name); err != nil {
			h.fail(w, r, err)
			return
		}
		w.WriteHeader(http.StatusNoContent)
		return
	}
	base, ok := strings.CutSuffix(name, ".csv")
	if !ok {
		h.fail(w, r, notFound("a selection is served as NAME.csv"))
		return
	}
	sels, err := h.jobs.Selections(id)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	at := slices.IndexFunc(sels, func(s jobs.Selection) bool { return s.Name == base })
	if at < 0 {
		h.fail(w, r, notFound("job %s has no selection %q", id, base))
		return
	}
	w.Header().Set("Content-Type", contentTypes[".csv"])
	w.Header().Set("Content-Disposition", attachment(export.SafeCell(base)+"_rows.csv"))
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"row"})
	for _, n := range sels[at].Rows {
		_ = cw.Write([]string{strconv.Itoa(n)})
	}
	cw.Flush()
}

// apiSearch is GET /api/jobs/{id}/search?q=…&method=M: the rows a query
// names (row numbers and ranges, or labels joined by and / not), as their
// numbers in the method's order.
func (h *handler) apiSearch(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	em, err := h.exploreMethod(chi.URLParam(r, "id"), q.Get("method"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	pos, err := em.view.Search(q.Get("q"))
	if ke := (*explore.KeyError)(nil); errors.As(err, &ke) {
		err = badRequest("q", "%s", ke.Msg)
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	rows := make([]int, len(pos))
	for i, p := range pos {
		rows[i] = int(em.view.Number[p])
	}
	writeJSON(w, http.StatusOK, map[string]any{"count": len(rows), "rows": rows})
}
