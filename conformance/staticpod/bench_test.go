package staticpod_test

import (
	"context"
	"testing"
	"time"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/staticpod"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/scenarios"
)

// BenchmarkLadder24h plays the 24-hour back-off ladder on the reference and
// reports virtual seconds per wall second, wall seconds per run and API
// calls (target: under 5 s of wall time).
//
//	go test -run '^$' -bench Ladder -benchtime 3x ./conformance/staticpod/
func BenchmarkLadder24h(b *testing.B) {
	sc, err := scenarios.BuiltinNamed("staticpod-backoff-ladder-24h")
	if err != nil {
		b.Fatal(err)
	}
	m := staticpod.Mechanism(staticpod.DefaultConfig())
	cast, err := m.Subjects(nil)
	if err != nil {
		b.Fatal(err)
	}
	var wall time.Duration
	var calls, n int
	for b.Loop() {
		run, _ := conformance.Play(context.Background(), api.Client, m, sc, cast, conformance.Options{Prefix: prefix()})
		if run.Error != "" {
			b.Fatal(run.Error)
		}
		for _, c := range run.Cases {
			if c.Status == reports.Fail {
				b.Fatalf("%s: %s", c.Rule, c.Message)
			}
		}
		n++
		wall += run.Wall
		calls += run.APICalls
	}
	b.ReportMetric(sc.Duration.Seconds()*float64(n)/wall.Seconds(), "virtual-s/s")
	b.ReportMetric(wall.Seconds()/float64(n), "wall-s")
	b.ReportMetric(float64(calls)/float64(n), "api-calls")
}
