package node

import (
	"net/url"
	"testing"
	"time"
)

const (
	hooksOK = "[+]poststarthook/generic-apiserver-start-informers ok\n" +
		"[+]poststarthook/start-apiextensions-informers ok\n" +
		"[+]poststarthook/start-apiextensions-controllers ok\n" +
		"[+]poststarthook/crd-informer-synced ok\n" +
		"[+]poststarthook/rbac/bootstrap-roles ok\n"
	etcdNotConnected = "internal server error: etcd client connection not yet established\n"
)

// Seed 003 §Readiness: what the startup-monitor probes (/healthz/etcd,
// /healthz, /readyz) answers in each model, in kube-apiserver's format.
func TestRespond(t *testing.T) {
	for _, tc := range []struct {
		name  string
		model Model
		at    time.Duration
		path  string
		query string
		code  int
		body  string
	}{
		{"healthy, ready", Model{Kind: Healthy}, time.Minute, "/readyz", "", 200, "ok"},
		{"healthy, ready, verbose", Model{Kind: Healthy}, time.Minute, "/readyz", "verbose=true", 200,
			"[+]ping ok\n[+]log ok\n[+]etcd ok\n" + hooksOK + "readyz check passed\n"},
		{"healthy, healthz verbose has no hooks", Model{Kind: Healthy}, time.Minute, "/healthz", "verbose", 200,
			"[+]ping ok\n[+]log ok\n[+]etcd ok\nhealthz check passed\n"},
		{"healthy, starting: hooks pending", Model{Kind: Healthy}, time.Second, "/readyz", "", 500,
			"[+]ping ok\n[+]log ok\n[+]etcd ok\n" +
				"[-]poststarthook/generic-apiserver-start-informers failed: reason withheld\n" +
				"[-]poststarthook/start-apiextensions-informers failed: reason withheld\n" +
				"[-]poststarthook/start-apiextensions-controllers failed: reason withheld\n" +
				"[-]poststarthook/crd-informer-synced failed: reason withheld\n" +
				"[-]poststarthook/rbac/bootstrap-roles failed: reason withheld\n" +
				"readyz check failed\n"},
		{"healthy, starting: healthz green", Model{Kind: Healthy}, time.Second, "/healthz", "", 200, "ok"},
		{"healthy, etcd alone", Model{Kind: Healthy}, time.Second, "/healthz/etcd", "", 200, "ok"},
		{"not ready: healthz green", Model{Kind: NotReady}, time.Minute, "/healthz", "", 200, "ok"},
		{"not ready: readyz names the hook", Model{Kind: NotReady}, time.Minute, "/readyz", "verbose", 500,
			"[+]ping ok\n[+]log ok\n[+]etcd ok\n" +
				"[+]poststarthook/generic-apiserver-start-informers ok\n" +
				"[+]poststarthook/start-apiextensions-informers ok\n" +
				"[-]poststarthook/start-apiextensions-controllers failed: reason withheld\n" +
				"[+]poststarthook/crd-informer-synced ok\n" +
				"[+]poststarthook/rbac/bootstrap-roles ok\n" +
				"readyz check failed\n"},
		{"not ready: the hook alone", Model{Kind: NotReady}, time.Minute, "/readyz/poststarthook/start-apiextensions-controllers", "", 500,
			"internal server error: not finished\n"},
		{"not ready: hooks are not on healthz", Model{Kind: NotReady}, time.Minute, "/healthz/poststarthook/start-apiextensions-controllers", "", 404,
			"404 page not found\n"},
		{"etcd hook stuck: healthz/etcd red", Model{Kind: EtcdHookStuck}, time.Minute, "/healthz/etcd", "", 500, etcdNotConnected},
		{"etcd hook stuck: healthz red", Model{Kind: EtcdHookStuck}, time.Minute, "/healthz", "", 500,
			"[+]ping ok\n[+]log ok\n[-]etcd failed: reason withheld\nhealthz check failed\n"},
		{"etcd hook stuck: readyz names etcd", Model{Kind: EtcdHookStuck}, time.Minute, "/readyz", "", 500,
			"[+]ping ok\n[+]log ok\n[-]etcd failed: reason withheld\n" + hooksOK + "readyz check failed\n"},
		{"etcd hook stuck, excluded (and a check it lacks)", Model{Kind: EtcdHookStuck}, time.Minute, "/readyz",
			"verbose=true&exclude=etcd&exclude=api-openshift-apiserver-available&exclude=etcd", 200,
			"[+]ping ok\n[+]log ok\n[+]etcd excluded: ok\n" + hooksOK +
				"warn: some health checks cannot be excluded: no matches for \"api-openshift-apiserver-available\"\n" +
				"readyz check passed\n"},
		{"etcd down: healthz/etcd red", Model{Kind: EtcdDownThenBack}, time.Minute, "/healthz/etcd", "", 500, etcdNotConnected},
		{"etcd back: healthz/etcd green", Model{Kind: EtcdDownThenBack}, 2 * time.Minute, "/healthz/etcd", "", 200, "ok"},
		{"unhealthy: healthz red", Model{Kind: Unhealthy}, time.Minute, "/healthz", "", 500,
			"[+]ping ok\n[-]log failed: reason withheld\n[+]etcd ok\nhealthz check failed\n"},
		{"unhealthy: the log check alone", Model{Kind: Unhealthy}, time.Minute, "/healthz/log", "", 500,
			"internal server error: logging blocked\n"},
		{"unknown path", Model{Kind: Healthy}, time.Minute, "/livez", "", 404, "404 page not found\n"},
	} {
		q, err := url.ParseQuery(tc.query)
		must(t, err)
		code, body := tc.model.At(epoch, epoch.Add(tc.at)).Respond(tc.path, q)
		if code != tc.code || body != tc.body {
			t.Errorf("%s: %s?%s =\n%d %q\nwant\n%d %q", tc.name, tc.path, tc.query, code, body, tc.code, tc.body)
		}
	}
}
