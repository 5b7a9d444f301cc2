package handlers_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"mldr/internal/auth"
	"mldr/internal/handlers"
	"mldr/internal/jobs"
)

// rawRequest sends a request as a simple script does: the headers and the
// whole body (chunked when asked, else with its length declared), and only
// then reads the answer. A server that answers before it has read the
// body and closes the connection makes the write or the read fail with a
// reset; the error says which.
func rawRequest(t *testing.T, s *server, method, path string, headers map[string]string, body []byte, chunked bool) (*http.Response, []byte, error) {
	t.Helper()
	c, err := net.Dial("tcp", s.http.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(60 * time.Second))
	var head strings.Builder
	fmt.Fprintf(&head, "%s %s HTTP/1.1\r\nHost: %s\r\n", method, path, s.http.Listener.Addr())
	for k, v := range headers {
		fmt.Fprintf(&head, "%s: %s\r\n", k, v)
	}
	if chunked {
		head.WriteString("Transfer-Encoding: chunked\r\n\r\n")
	} else {
		fmt.Fprintf(&head, "Content-Length: %d\r\n\r\n", len(body))
	}
	w := bufio.NewWriterSize(c, 64<<10)
	w.WriteString(head.String())
	if _, ok := headers["Expect"]; !ok {
		if chunked {
			for b := body; len(b) > 0; {
				n := min(len(b), 1<<20)
				fmt.Fprintf(w, "%x\r\n", n)
				w.Write(b[:n])
				w.WriteString("\r\n")
				b = b[n:]
			}
			w.WriteString("0\r\n\r\n")
		} else {
			w.Write(body)
		}
	}
	if err := w.Flush(); err != nil {
		return nil, nil, fmt.Errorf("writing the request: %w", err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return nil, nil, fmt.Errorf("reading the answer: %w", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, nil, fmt.Errorf("reading the answer's body: %w", err)
	}
	return resp, b, nil
}

// A body larger than its route allows gets 413 and a sentence, JSON under
// /api/ and for a client that asks for it, an HTML page for a browser,
// even when the client sends its whole body before reading the answer;
// nothing is stored or changed.
func TestOversizedBodies(t *testing.T) {
	s := newJobServer(t, 1, 10, nil)
	ml := s.demo("multilabel")
	_, sub := s.submit(`{"dataset":"` + ml + `","method":"pca","params":{"d":2}}`)
	job := sub["id"].(string)
	s.waitJob(job, jobs.Succeeded)
	guard, err := auth.New(testToken, time.Hour, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	guarded := newConfiguredServer(t, handlers.Config{Guard: guard})
	before, guardedBefore := s.snapshot(), guarded.snapshot()
	_, jobsBefore := s.do("GET", "/api/jobs", "", nil)

	const (
		form     = "application/x-www-form-urlencoded"
		jsonType = "application/json"
		mib      = 1 << 20
		beyond   = 12 * mib // past what the sockets' buffers hold
	)
	for _, tc := range []struct {
		name, method, path, ctype, accept string
		srv                               *server
		limit                             int
		chunked, expect                   bool
		json                              bool // the refusal is JSON
	}{
		{"login", "POST", "/login", form, "", guarded, mib, false, false, false},
		{"login, chunked", "POST", "/login", form, "", guarded, mib, true, false, false},
		{"login, asking for JSON", "POST", "/login", form, jsonType, guarded, mib, false, false, true},
		{"login, 100-continue", "POST", "/login", form, "", guarded, mib, false, true, false},
		{"logout", "POST", "/logout", form, "", s, mib, false, false, false},
		{"job request", "POST", "/api/jobs", jsonType, "", s, 64 << 10, false, false, true},
		{"job request, chunked", "POST", "/api/jobs", jsonType, "", s, 64 << 10, true, false, true},
		{"cancel", "POST", "/api/jobs/" + job + "/cancel", form, "", s, mib, false, false, true},
		{"rerun", "POST", "/api/jobs/" + job + "/rerun", form, "", s, mib, false, false, true},
		{"selection", "POST", "/api/jobs/" + job + "/selection", jsonType, "", s, 16 * mib, false, false, true},
		{"selections", "POST", "/api/jobs/" + job + "/selections", jsonType, "", s, 16 * mib, true, false, true},
		{"demo", "POST", "/api/datasets/demo", form, "", s, mib, false, false, true},
		{"relabel", "PUT", "/api/datasets/" + ml + "/labels", jsonType, "", s, mib, false, false, true},
		{"demo page", "POST", "/datasets/demo", form, "", s, mib, false, false, false},
		{"analysis page", "POST", "/datasets/" + ml + "/analyze", form, "", s, mib, true, false, false},
		{"relabel page", "POST", "/datasets/" + ml + "/labels", form, "", s, mib, false, false, false},
		{"delete page", "POST", "/datasets/" + ml + "/delete", form, "", s, mib, false, false, false},
		{"study page", "POST", "/study", form, "", s, mib, false, false, false},
		{"cancel page", "POST", "/jobs/" + job + "/cancel", form, "", s, mib, false, false, false},
		{"delete job page", "POST", "/jobs/" + job + "/delete", form, "", s, mib, false, false, false},
		{"rerun page", "POST", "/jobs/" + job + "/rerun", form, "", s, mib, false, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			headers := map[string]string{"Content-Type": tc.ctype}
			if tc.accept != "" {
				headers["Accept"] = tc.accept
			}
			if tc.expect {
				headers["Expect"] = "100-continue"
			}
			body := bytes.Repeat([]byte("a"), tc.limit+beyond)
			resp, b, err := rawRequest(t, tc.srv, tc.method, tc.path, headers, body, tc.chunked)
			if err != nil {
				t.Fatalf("got %v, want 413", err)
			}
			limit := map[int]string{mib: "1 MiB", 64 << 10: "64 KiB", 16 * mib: "16 MiB"}[tc.limit]
			want := "the request's body is larger than the " + limit + " this address accepts; send a smaller one"
			if resp.StatusCode != http.StatusRequestEntityTooLarge {
				t.Fatalf("got %d %.300s, want 413", resp.StatusCode, b)
			}
			ctype := resp.Header.Get("Content-Type")
			if tc.json {
				var e struct{ Error string }
				if err := json.Unmarshal(b, &e); err != nil || !strings.HasPrefix(ctype, jsonType) || e.Error != want {
					t.Errorf("got %s %.300s, want JSON {\"error\": %q}", ctype, b, want)
				}
				return
			}
			page := parseHTML(t, b)
			if got := page.Find("main").Text(); !strings.HasPrefix(ctype, "text/html") || !strings.Contains(got, "The request's body is larger than the "+limit) {
				t.Errorf("got %s %.300s, want an HTML page saying %q", ctype, got, want)
			}
		})
	}
	if after := s.snapshot(); after != before {
		t.Errorf("the store changed:\nbefore %s\nafter %s", before, after)
	}
	if after := guarded.snapshot(); after != guardedBefore {
		t.Errorf("the guarded server's store changed:\nbefore %s\nafter %s", guardedBefore, after)
	}
	if _, jobsAfter := s.do("GET", "/api/jobs", "", nil); string(jobsAfter) != string(jobsBefore) {
		t.Errorf("the jobs changed:\nbefore %s\nafter %s", jobsBefore, jobsAfter)
	}
}
