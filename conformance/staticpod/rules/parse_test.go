package rules

import (
	"reflect"
	"testing"

	"github.com/opcert/opcert/sim/timeline"
)

// The Details of the timeline contract (doc.go).
func TestParseManifest(t *testing.T) {
	for detail, want := range map[string]manifestNote{
		"revision=3": {revision: 3},
		"revision=2 fallback-for-revision=3 fallback-reason=NotReady fallback-message=/readyz: hooks a, b\nsecond line": {
			revision: 2, fallback: true, forRevision: "3", reason: "NotReady", message: "/readyz: hooks a, b\nsecond line"},
		"revision=2 fallback-for-revision=3": {revision: 2, fallback: true, forRevision: "3"},
		"revision=x":                         {},
		"":                                   {},
	} {
		if got := parseManifest(detail); !reflect.DeepEqual(got, want) {
			t.Errorf("parseManifest(%q) = %+v, want %+v", detail, got, want)
		}
	}
}

func TestParseProbe(t *testing.T) {
	for _, tc := range []struct {
		detail             string
		failed             bool
		answered, ok, etcd bool
		hooks              []string
	}{
		{detail: "200 OK", answered: true, ok: true},
		{detail: "connection refused", failed: true},
		{detail: hookRed, failed: true, answered: true, hooks: []string{"start-apiextensions-controllers"}},
		{detail: etcdRed, failed: true, answered: true, etcd: true},
		{detail: failed + "\n[-]poststarthook/etcd-readiness failed: reason withheld", failed: true, answered: true, etcd: true, hooks: []string{"etcd-readiness"}},
	} {
		p := parseProbe(timeline.Event{Detail: tc.detail, Failed: tc.failed})
		if p.answered != tc.answered || p.ok != tc.ok || p.etcdFailing() != tc.etcd || !reflect.DeepEqual(p.unfinishedHooks(), tc.hooks) {
			t.Errorf("parseProbe(%q): answered %v ok %v etcd %v hooks %v", tc.detail, p.answered, p.ok, p.etcdFailing(), p.unfinishedHooks())
		}
	}
}

func TestRevisionPaths(t *testing.T) {
	for p, want := range map[string]int{
		"/etc/kubernetes/static-pods/kube-apiserver-pod-7":                          7,
		"/etc/kubernetes/static-pods/kube-apiserver-pod-7/configmaps/config/a.yaml": 7,
		"/etc/kubernetes/static-pods/kube-apiserver-pod-":                           0,
		"/etc/kubernetes/static-pods/last-known-good":                               0,
	} {
		if got, _ := revisionOf(p); got != want {
			t.Errorf("revisionOf(%q) = %d, want %d", p, got, want)
		}
	}
}
