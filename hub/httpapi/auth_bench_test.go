package httpapi

import (
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/switchboard-hub/switchboard/hub/client"
)

// What the proof of the hub (GET /healthz?nonce= on each new connection,
// hub/client) costs: a call on a new connection, proven first, against a
// call on a kept-alive one.
func BenchmarkProvenConnection(b *testing.B) {
	h := newHarness(b)
	ctx := context.Background()
	b.Run("new connection", func(b *testing.B) {
		for b.Loop() {
			c := client.ForHub(client.NewHub(h.url, testToken), client.Options{ClientID: "bench"})
			if _, err := c.Agents(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("new connection, no proof", func(b *testing.B) {
		for b.Loop() {
			hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
			req := h.request("GET", "/v1/agents", "")
			resp, err := hc.Do(req)
			if err != nil || resp.StatusCode != 200 {
				b.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	})
	b.Run("kept alive", func(b *testing.B) {
		c := client.ForHub(client.NewHub(h.url, testToken), client.Options{ClientID: "bench"})
		for b.Loop() {
			if _, err := c.Agents(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
}
