package clusteroperator_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/clusteroperator"
	"github.com/opcert/opcert/conformance/conformancetest"
	"github.com/opcert/opcert/scenarios"
)

// payload30 is an upgrade of a 30-component payload: each component a
// Deployment of 3 replicas, upgraded from 4.0.0 to 4.0.1 in payload order.
func payload30(b *testing.B) *scenarios.Scenario {
	var yaml strings.Builder
	yaml.WriteString("name: co-payload-30\nmechanism: clusteroperator\nduration: 3h\nrelease: 4.0.0\ncomponents:\n")
	for i := range 30 {
		fmt.Fprintf(&yaml, "  - name: component-%02d\n    operands:\n      - {kind: Deployment, name: operand, replicas: 3}\n", i)
	}
	yaml.WriteString("steps:\n  - at: 1h\n    upgrade: 4.0.1\n")
	yaml.WriteString("  - at: 2h59m\n    expect: {apiVersion: config.openshift.io/v1, kind: ClusterVersion, object: version, condition: Progressing, status: \"False\", message: \"Cluster version is 4.0.1\"}\n")
	sc, err := scenarios.Parse("payload-30.yaml", []byte(yaml.String()))
	if err != nil {
		b.Fatal(err)
	}
	return sc
}

// BenchmarkPayload30 installs and upgrades a 30-component payload on the
// reference and reports wall seconds per run, virtual seconds per wall
// second, API calls, and the run's wall time over its API floor (calls x
// the median call's latency: 1 when the API server is all the time spent).
//
//	go test -run '^$' -bench Payload30 -benchtime 2x ./conformance/clusteroperator/
func BenchmarkPayload30(b *testing.B) {
	sc := payload30(b)
	m := clusteroperator.Mechanism(clusteroperator.DefaultConfig())
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
