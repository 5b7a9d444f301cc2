package handlers

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"mldr/internal/dataset"
	"mldr/internal/formparts"
	"mldr/internal/store"
)

// uploadFields are the form fields of an upload besides the files.
var uploadFields = []string{"name", "labels", "label_prefix", "label_count", "kind", "missing", "nominal", "drop", "format"}

// maxFieldBytes bounds one form field's value.
const maxFieldBytes = 64 << 10

// receiveUpload streams a multipart upload to the store's staging area, in
// whatever order its parts come, and returns the staged files and the other
// fields. The caller must Discard the staged upload.
func (h *handler) receiveUpload(r *http.Request) (*store.Staged, map[string]string, error) {
	values := map[string]string{}
	mr, err := formparts.FromRequest(r)
	if err != nil {
		return nil, values, badRequest("file", "send the upload as multipart/form-data, with the data file in a field named \"file\"")
	}
	if h.database != nil {
		// Refused before its body is read when its record could not be
		// stored.
		if err := h.database(r.Context()); err != nil {
			return nil, values, err
		}
	}
	st, err := h.store.Stage()
	if err != nil {
		return nil, values, err
	}
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return st, values, bodyError(err)
		}
		err = h.receivePart(r, st, part, values)
		part.Close()
		if err != nil {
			return st, values, bodyError(err)
		}
	}
	if !st.Received() {
		return st, values, badRequest("file", "choose a CSV, ARFF or libsvm file to upload")
	}
	return st, values, nil
}

func (h *handler) receivePart(r *http.Request, st *store.Staged, part *formparts.Part, values map[string]string) error {
	name := part.FormName()
	switch name {
	case "file":
		// With the options sent before the file (the upload form sends
		// them first), the file is read as it arrives; options that come
		// after it and change them make the store read it again. Only a
		// body of declared length (browsers and curl declare it) is read
		// so: without a size the loader could not size its matrices once,
		// and growing them would cost more than the reading saves.
		if opts, err := uploadOptions(values); err == nil && r.ContentLength > 0 {
			st.ReadAsReceived(opts, r.ContentLength)
		}
		return st.ReceiveSource(r.Context(), part.FileName(), part, h.maxUpload)
	case "xml", "folds":
		// An empty file field of a form arrives as an empty part.
		peek := make([]byte, 1)
		n, _ := io.ReadFull(part, peek)
		if n == 0 {
			return nil
		}
		body := io.MultiReader(bytes.NewReader(peek[:n]), part)
		if name == "folds" {
			return st.ReceiveFolds(r.Context(), body)
		}
		return st.ReceiveXML(r.Context(), body)
	}
	if !slices.Contains(uploadFields, name) {
		return badRequest(name, "unknown field %q; an upload takes file, xml, folds and %s", name, strings.Join(uploadFields, ", "))
	}
	b, err := io.ReadAll(io.LimitReader(part, maxFieldBytes+1))
	if err != nil {
		return err
	}
	if len(b) > maxFieldBytes {
		return badRequest(name, "the field %q is longer than %d bytes", name, maxFieldBytes)
	}
	values[name] = string(b)
	return nil
}

// bodyError turns a broken request body into a clear refusal, keeping
// errors that already say what is wrong.
func bodyError(err error) error {
	var mb *http.MaxBytesError
	var he *httpError
	var ie *dataset.InputError
	var tl *store.TooLargeError
	if errors.As(err, &mb) || errors.As(err, &he) || errors.As(err, &ie) || errors.As(err, &tl) {
		return err
	}
	if strings.Contains(err.Error(), "multipart") || errors.Is(err, io.ErrUnexpectedEOF) {
		return badRequest("file", "the upload arrived incomplete or malformed (%v); send it again", err)
	}
	return err
}

// uploadOptions reads the loader options from the form fields.
func uploadOptions(v map[string]string) (dataset.Options, error) {
	o := dataset.Options{
		Format:      dataset.Format(strings.ToLower(strings.TrimSpace(v["format"]))),
		Labels:      dataset.ParseList(v["labels"]),
		LabelPrefix: v["label_prefix"],
		Kind:        dataset.Kind(strings.TrimSpace(v["kind"])),
		Missing:     dataset.MissingPolicy(strings.TrimSpace(v["missing"])),
		Nominal:     dataset.NominalPolicy(strings.TrimSpace(v["nominal"])),
		Drop:        dataset.ParseList(v["drop"]),
	}
	if s := strings.TrimSpace(v["label_count"]); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			return o, badRequest("label_count", "label_count must be a whole number, not %q", s)
		}
		o.LabelCount = n
	}
	return o, o.Validate()
}

func isNotFound(err error) bool { return errors.Is(err, store.ErrNotFound) }
