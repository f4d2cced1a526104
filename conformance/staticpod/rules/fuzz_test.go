package rules

import (
	"bytes"
	"testing"
	"time"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/sim/timeline"
)

// FuzzRules feeds the rules any timeline the reader accepts: whatever the
// details, paths and annotations say (they are parsed: manifest notes,
// probe answers, revision paths), no rule panics, and every verdict is
// pass, fail or skip, in either profile.
func FuzzRules(f *testing.F) {
	for _, s := range []string{
		`{"seq":1,"time":"2026-01-01T00:01:00Z","actor":"installer/master-0","role":"installer","verb":"write","object":{"kind":"File","namespace":"master-0","name":"/etc/kubernetes/manifests/kube-apiserver-pod.yaml"},"detail":"revision=2"}`,
		`{"seq":2,"time":"2026-01-01T00:06:00Z","actor":"startup-monitor/master-0","role":"startup-monitor","verb":"write","object":{"kind":"File","namespace":"master-0","name":"/etc/kubernetes/manifests/kube-apiserver-pod.yaml"},"detail":"revision=1 fallback-for-revision=2 fallback-reason=NotReady fallback-message=x y"}`,
		`{"seq":3,"time":"2026-01-01T00:02:00Z","actor":"operand/master-0","role":"operand","verb":"probe","object":{"kind":"Probe","namespace":"master-0","name":"kube-apiserver/readyz"},"detail":"500 Internal Server Error\n[-]etcd failed: reason withheld","failed":true}`,
		`{"seq":4,"time":"2026-01-01T00:03:00Z","actor":"kubelet/master-0","role":"kubelet","verb":"create","object":{"kind":"Pod","namespace":"openshift-kube-apiserver","name":"kube-apiserver-master-0"},"fields":[{"path":"metadata.annotations","after":{"revision":"2"}}]}`,
		`{"seq":5,"time":"2026-01-01T00:04:00Z","actor":"pruner/master-0","role":"pruner","verb":"symlink","object":{"kind":"File","namespace":"master-0","name":"/etc/kubernetes/static-pods/last-known-good"},"target":"/etc/kubernetes/static-pods/kube-apiserver-pod-../../x"}`,
	} {
		f.Add([]byte(s + "\n"))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tl, err := timeline.ReadJSONL(bytes.NewReader(data))
		if err != nil {
			return
		}
		events, end := tl.Events(), timeline.Epoch.Add(time.Hour)
		for _, e := range events {
			if e.Time.After(end) {
				end = e.Time
			}
		}
		for _, cfg := range []Config{DefaultConfig(), LibraryGo()} {
			j := judge.NewJudging(events, end)
			for _, r := range Rules(cfg) {
				switch v := r.Check(j); v.Status {
				case "pass", "fail", "skip":
				default:
					t.Fatalf("%s: verdict %q", r.ID, v.Status)
				}
			}
		}
	})
}
