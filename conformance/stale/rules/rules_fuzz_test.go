package rules

import (
	"bytes"
	"testing"
	"time"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/sim/timeline"
)

// FuzzRules feeds the STALE rules any timeline the reader accepts: no rule
// panics on what the messages, conditions and process events say, and
// every verdict is pass, fail or skip.
func FuzzRules(f *testing.F) {
	for _, s := range []string{
		`{"seq":1,"time":"2026-01-01T00:00:00Z","actor":"operator/etcd","role":"operator","verb":"update-status","object":{"kind":"ClusterOperator","group":"config.openshift.io","name":"etcd"},"conditions":[{"type":"Available","after":{"type":"Available","status":"True","message":"ok","lastTransitionTime":"2026-01-01T00:00:00Z"}}]}`,
		`{"seq":2,"time":"2026-01-01T00:10:00Z","actor":"detector","role":"detector","verb":"update-status","object":{"kind":"ClusterOperator","group":"config.openshift.io","name":"etcd"},"conditions":[{"type":"Available","before":{"type":"Available","status":"True","message":"ok","lastTransitionTime":"2026-01-01T00:00:00Z"},"after":{"type":"Available","status":"True","message":"Operator checking for stale status, the active operator will reset this message: ok","lastTransitionTime":"2026-01-01T00:00:00Z"}}]}`,
		`{"seq":3,"time":"2026-01-01T00:11:00Z","actor":"scenario","role":"scenario","verb":"kill","object":{"kind":"Process","name":"operator/etcd"}}`,
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
		j := judge.NewJudging(events, end)
		for _, r := range Rules(DefaultConfig()) {
			switch v := r.Check(j); v.Status {
			case "pass", "fail", "skip":
			default:
				t.Fatalf("%s: verdict %q", r.ID, v.Status)
			}
		}
	})
}
