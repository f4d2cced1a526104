package staticpod_test

import (
	"testing"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/conformancetest"
	"github.com/opcert/opcert/conformance/staticpod"
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
	cast, err := conformance.Subjects(m, nil)
	if err != nil {
		b.Fatal(err)
	}
	t := conformancetest.PlayLoop(b, api.Client, m, sc, cast, prefix, nil)
	b.ReportMetric(sc.Duration.Seconds()*float64(t.Runs)/t.Wall.Seconds(), "virtual-s/s")
	b.ReportMetric(t.Wall.Seconds()/float64(t.Runs), "wall-s")
	b.ReportMetric(float64(t.Calls)/float64(t.Runs), "api-calls")
}
