package handlers_test

import (
	"net/http"
	"strings"
	"testing"

	"mldr/internal/jobs"
)

// Every JSON body the API reads is refused in its own words: a malformed
// or empty body is told what that endpoint expects, a key given twice at
// any depth is refused with its path, an unknown key and a value of the
// wrong type with the field; and a refusal stores nothing.
func TestJSONBodyRefusals(t *testing.T) {
	s := newJobServer(t, 1, 10, nil)
	ml := s.demo("multilabel")
	resp, body := s.submit(`{"dataset":"` + ml + `","method":"pca","params":{"d":2}}`)
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("submit: got %d %v", resp.StatusCode, body)
	}
	job := body["id"].(string)
	s.waitJob(job, jobs.Succeeded)
	before := s.snapshot()
	_, jobsBefore := s.do("GET", "/api/jobs", "", nil)

	const (
		jobShape       = `{"dataset": "ID", "method": "pca", "params": {"d": 2}} (see docs/API.md, POST /api/jobs)`
		labelsShape    = `{"labels": ["col1", "col2"], "kind": ""}`
		selectionShape = `{"method": "pca", "rows": [1, 2, 3]}`
		namedShape     = `{"name": "cluster 1", "method": "pca", "rows": [1, 2, 3]}`
	)
	ds := `"dataset":"` + ml + `"`
	for _, tc := range []struct {
		name, method, path, body string
		field, want              string // the refusal's field and sentence, all 400
	}{
		{"job: malformed", "POST", "/api/jobs", `{"dataset":`, "",
			"the body must be a JSON job request: " + jobShape + "; it is not: unexpected end of JSON input"},
		{"job: not JSON", "POST", "/api/jobs", `dataset=x`, "",
			"the body must be a JSON job request: " + jobShape + "; it is not: invalid character 'd' looking for beginning of value (at byte 1)"},
		{"job: empty", "POST", "/api/jobs", " \n", "", "the body is empty; send a JSON job request: " + jobShape},
		{"job: two values", "POST", "/api/jobs", `{` + ds + `,"method":"pca"} {}`, "",
			"the body holds more than one JSON value; send one job request: " + jobShape},
		{"job: an array", "POST", "/api/jobs", `[]`, "", "the body must be a JSON job request, an object: " + jobShape + "; it is an array"},
		{"job: a key twice", "POST", "/api/jobs", `{` + ds + `,"method":"pca","dataset":"nope"}`, "dataset",
			`the key "dataset" appears twice in the job request; give each key once`},
		{"job: a nested key twice", "POST", "/api/jobs", `{` + ds + `,"method":"pca","evaluate":{"classifier":"ridge","k":3,"classifier":"svm"}}`,
			"evaluate.classifier", `the key "evaluate.classifier" appears twice in the job request; give each key once`},
		{"job: a key twice by its case", "POST", "/api/jobs", `{` + ds + `,"method":"pca","Method":"mddmp"}`, "method",
			`the key "method" appears twice in the job request, as "method" and "Method" (keys match whatever their case); give each key once`},
		{"job: an unknown key", "POST", "/api/jobs", `{` + ds + `,"method":"pca","colour":1}`, "colour", `unknown field "colour" in the job request`},
		{"job: a wrong type", "POST", "/api/jobs", `{` + ds + `,"method":"pca","evaluate":{"k":"3"}}`, "evaluate.k",
			`the field "evaluate.k" of the job request must be int, not string`},

		{"labels: malformed", "PUT", "/api/datasets/" + ml + "/labels", `{"labels":["a"]`, "",
			"the body must be a JSON choice of label columns: " + labelsShape + "; it is not: unexpected end of JSON input"},
		{"labels: a key twice", "PUT", "/api/datasets/" + ml + "/labels", `{"labels":["label:beach"],"kind":"","labels":["label:sea"]}`, "labels",
			`the key "labels" appears twice in the choice of label columns; give each key once`},
		{"labels: an unknown key", "PUT", "/api/datasets/" + ml + "/labels", `{"labels":["label:beach"],"colour":1}`, "colour",
			`unknown field "colour" in the choice of label columns; it takes labels and kind`},

		{"selection: malformed", "POST", "/api/jobs/" + job + "/selection", `{"rows":[1,2}`, "",
			"the body must be a JSON selection: " + selectionShape + "; it is not: invalid character '}' after array element (at byte 13)"},
		{"selection: a key twice", "POST", "/api/jobs/" + job + "/selection", `{"rows":[1],"method":"pca","rows":[2]}`, "rows",
			`the key "rows" appears twice in the selection; give each key once`},
		{"selection: an unknown key", "POST", "/api/jobs/" + job + "/selection", `{"rows":[1],"extra":1}`, "extra",
			`unknown field "extra" in the selection; it takes method and rows`},
		{"selection: a wrong type", "POST", "/api/jobs/" + job + "/selection", `{"rows":"1"}`, "rows",
			`the field "rows" of the selection must be []int, not string`},

		{"named selection: malformed", "POST", "/api/jobs/" + job + "/selections", `{"name":"a",`, "",
			"the body must be a JSON named selection: " + namedShape + "; it is not: unexpected end of JSON input"},
		{"named selection: a key twice", "POST", "/api/jobs/" + job + "/selections", `{"name":"a","rows":[1],"NAME":"b"}`, "name",
			`the key "name" appears twice in the named selection, as "name" and "NAME" (keys match whatever their case); give each key once`},
		{"named selection: an unknown key", "POST", "/api/jobs/" + job + "/selections", `{"name":"a","rows":[1],"colour":"red"}`, "colour",
			`unknown field "colour" in the named selection; it takes name, method and rows`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, b := s.do(tc.method, tc.path, "application/json", strings.NewReader(tc.body))
			e := decode[apiErr](t, b)
			if resp.StatusCode != http.StatusBadRequest || e.Field != tc.field || e.Error != tc.want {
				t.Errorf("got %d, field %q: %s\nwant 400, field %q: %s", resp.StatusCode, e.Field, e.Error, tc.field, tc.want)
			}
		})
	}
	if after := s.snapshot(); after != before {
		t.Errorf("the store changed:\nbefore %s\nafter %s", before, after)
	}
	if _, jobsAfter := s.do("GET", "/api/jobs", "", nil); string(jobsAfter) != string(jobsBefore) {
		t.Errorf("the jobs changed:\nbefore %s\nafter %s", jobsBefore, jobsAfter)
	}
	if _, b := s.do("GET", "/api/jobs/"+job+"/selections", "", nil); !strings.Contains(string(b), `"selections": []`) {
		t.Errorf("selections after the refusals: got %s, want none", b)
	}
}
