package stackable_test

import (
	"testing"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/conformancetest"
	"github.com/opcert/opcert/conformance/stackable"
	"github.com/opcert/opcert/scenarios"
)

// BenchmarkFleet24h is issue 11's load: 1,000 product clusters (a
// StatefulSet of 3 each) over 20 namespaces for 24 virtual hours, a
// cluster's pods failing or lost at random (mean time to failure 6h,
// recovering after 5m), the reference operator publishing the table
// throughout and every STACKABLE rule judging it. It reports wall seconds
// per run, virtual seconds per wall second, API calls and the run's wall
// time over its API floor.
//
//	go test -run '^$' -bench Fleet24h -benchtime 1x -timeout 30m ./conformance/stackable/
func BenchmarkFleet24h(b *testing.B) {
	sc, err := scenarios.Parse("stackable-fleet-24h.yaml", []byte(`name: stackable-fleet-24h
mechanism: stackable
duration: 24h
load: {clusters: 1000, namespaces: 20, replicas: 3, meanTimeToFailure: 6h, recoverAfter: 5m, seed: 11}
`))
	if err != nil {
		b.Fatal(err)
	}
	m := stackable.Mechanism(stackable.DefaultConfig())
	cast, err := conformance.Subjects(m, nil)
	if err != nil {
		b.Fatal(err)
	}
	t := conformancetest.PlayLoop(b, api.Client, m, sc, cast, prefix, nil)
	b.ReportMetric(t.Wall.Seconds()/float64(t.Runs), "wall-s")
	b.ReportMetric(sc.Duration.Seconds()*float64(t.Runs)/t.Wall.Seconds(), "virtual-s/s")
	b.ReportMetric(float64(t.Calls)/float64(t.Runs), "api-calls")
	b.ReportMetric(t.Wall.Seconds()/t.Floor.Seconds(), "wall/floor")
}
