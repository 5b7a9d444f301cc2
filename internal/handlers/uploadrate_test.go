package handlers_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"mldr/internal/handlers"
)

// manualTicker hands each upload's ticker channel to the test.
type manualTicker chan chan time.Time

func (m manualTicker) ticker(time.Duration) (<-chan time.Time, func()) {
	c := make(chan time.Time)
	m <- c
	return c, func() {}
}

// tickUntil sends ticks on c until done is closed.
func tickUntil(c chan time.Time, done <-chan struct{}) {
	for {
		select {
		case c <- time.Now():
		case <-done:
			return
		}
	}
}

// A client that trickles its upload (and relabelling) body is cut off with
// 408 once a window has passed, and its upload slot is free for the next.
func TestSlowUploadCutOff(t *testing.T) {
	ticks := make(manualTicker, 8)
	s := newConfiguredServer(t, handlers.Config{MaxUploads: 1, Version: "test", UploadTicker: ticks.ticker})
	const want = "the upload was slower than 10 KiB/s for 20 s; try again on a faster connection"
	_, demo := s.do("POST", "/api/datasets/demo?demo=multilabel", "", nil)
	ds := decode[apiDataset](t, demo).ID

	upload, ctype := multipartBody(t, part{name: "file", file: "a.csv", body: smallCSV})
	uploadBytes, _ := io.ReadAll(upload)
	form := url.Values{"labels": {"label:x"}}.Encode()
	for _, c := range []struct {
		name, head string
		body       string
		json       bool
	}{
		{"an upload", fmt.Sprintf("POST /api/datasets HTTP/1.1\r\nHost: test\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n", ctype, len(uploadBytes)), string(uploadBytes), true},
		{"the relabel form", fmt.Sprintf("POST /datasets/%s/labels HTTP/1.1\r\nHost: test\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: %d\r\n\r\n", ds, len(form)), form, false},
		{"the relabel API", fmt.Sprintf("PUT /api/datasets/%s/labels HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n", ds), `{"labels": [`, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", strings.TrimPrefix(s.http.URL, "http://"))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			io.WriteString(conn, c.head+c.body[:10]) // and then nothing
			var tc chan time.Time
			select {
			case tc = <-ticks:
			case <-time.After(10 * time.Second):
				t.Fatal("the slow request did not reach the upload slot within 10 s")
			}
			done := make(chan struct{})
			go tickUntil(tc, done)
			conn.SetReadDeadline(time.Now().Add(10 * time.Second))
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			close(done)
			if err != nil {
				t.Fatalf("no answer to the slow request: %v", err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusRequestTimeout {
				t.Fatalf("got %d %s, want 408", resp.StatusCode, body)
			}
			if c.json && decode[apiErr](t, body).Error != want || !c.json && !strings.Contains(string(body), "The upload was slower than 10 KiB/s for 20 s") {
				t.Errorf("got %s, want %q", body, want)
			}
			// The slot is free: the next upload goes through.
			b, ct := multipartBody(t, part{name: "file", file: "b.csv", body: smallCSV})
			if resp, body := s.send("POST", "/api/datasets", map[string]string{"Content-Type": ct}, b); resp.StatusCode != http.StatusCreated {
				t.Errorf("an upload after the slow one: got %d %s, want 201", resp.StatusCode, body)
			}
			<-ticks // that upload's ticker
		})
	}
}
