package handlers

import (
	"net/http"
	"slices"
	"strings"

	"mldr/web/templates"
)

// pageCompare shows finished jobs side by side (?jobs=, ids separated by
// commas or repeated; ?metric=).
func (h *handler) pageCompare(w http.ResponseWriter, r *http.Request) {
	var ids []string
	for _, v := range r.URL.Query()["jobs"] {
		for _, id := range strings.Split(v, ",") {
			if id = strings.TrimSpace(id); id != "" && !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	v, err := h.build.Compare(r.URL.Query().Get("metric"), ids)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	v.Page = h.page("Compare", "compare")
	h.render(w, r, http.StatusOK, templates.ComparePage(v))
}
