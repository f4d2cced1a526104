package node

import (
	"io"
	"net/http"
	"testing"
	"time"

	testingclock "k8s.io/utils/clock/testing"
)

func get(t *testing.T, url string) (int, string, http.Header, error) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		return 0, "", nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), resp.Header, err
}

// The endpoints answer over real HTTP from the state at the clock's time
// of each request; a process that does not listen is not answered.
func TestServe(t *testing.T) {
	clk := testingclock.NewFakeClock(epoch)
	op, err := NewOperand(kas, 3, Model{Kind: EtcdDownThenBack, StartDelay: 5 * time.Second, EtcdDownFor: time.Minute}, epoch)
	must(t, err)
	srv, err := Serve(clk, op.State)
	must(t, err)
	t.Cleanup(func() { srv.Close() })

	if _, _, _, err := get(t, srv.URL+"/healthz"); err == nil {
		t.Error("answered before the process started")
	}
	for _, tc := range []struct {
		at   time.Duration
		path string
		code int
		body string
	}{
		{5 * time.Second, "/healthz/etcd", 500, etcdNotConnected},
		{time.Minute, "/healthz/etcd", 500, etcdNotConnected},
		{time.Minute + 5*time.Second, "/healthz/etcd", 200, "ok"},
		{time.Minute + 5*time.Second, "/readyz", 200, "ok"},
		{time.Minute + 5*time.Second, "/metrics", 404, "404 page not found\n"},
	} {
		clk.SetTime(epoch.Add(tc.at))
		code, body, header, err := get(t, srv.URL+tc.path)
		if err != nil || code != tc.code || body != tc.body {
			t.Errorf("+%s %s = %d %q, %v; want %d %q", tc.at, tc.path, code, body, err, tc.code, tc.body)
		}
		if ct := header.Get("Content-Type"); err == nil && ct != "text/plain; charset=utf-8" {
			t.Errorf("+%s %s: Content-Type %q", tc.at, tc.path, ct)
		}
	}
}

func TestServeRefusesWhileNotListening(t *testing.T) {
	for _, m := range []Model{{Kind: ConnectionRefused}, {Kind: BadConfig}, {Kind: InvalidManifest}} {
		clk := testingclock.NewFakeClock(epoch.Add(time.Minute))
		srv, err := Serve(clk, func(now time.Time) State { return m.At(epoch, now) })
		must(t, err)
		if code, body, _, err := get(t, srv.URL+"/healthz"); err == nil {
			t.Errorf("%s: answered %d %q", m.Kind, code, body)
		}
		must(t, srv.Close())
	}
}
