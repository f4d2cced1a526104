package olm_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/olm"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/scenarios"
)

// load is 10,000 Foos over 50 namespaces with changes random condition
// writes, one a second, and an upgrade asked at the end.
func load(b *testing.B, changes int) *scenarios.Scenario {
	yaml := fmt.Sprintf(`name: olm-load-10k
mechanism: olm
duration: %ds
crds:
  - name: foos.example.com
    upgradeable: "!Migrating"
    important: "BadConnectivity || UnhealthyDatabase"
load: {kind: Foo, crs: 10000, namespaces: 50, changes: %d, every: 1s, seed: 7}
`, changes+60, changes)
	sc, err := scenarios.Parse("olm-load-10k.yaml", []byte(yaml))
	if err != nil {
		b.Fatal(err)
	}
	return sc
}

// BenchmarkLoad10k measures how fast the reference aggregator keeps up
// with CR status changes (002's scaling concern, §Drawbacks to
// Communicating status through CustomResources): 10,000 Foos over 50
// namespaces, first without changes (the set-up: creating the CRs, the
// aggregator's first listing), then with 2,000 random changes of their
// conditions, each followed within its instant by the Probe's status.
// changes/s is the changes over the second run's extra wall time: a CR
// status write, the aggregator's read of that CR and its Probe write.
//
//	go test -run '^$' -bench Load10k -benchtime 1x ./conformance/olm/
func BenchmarkLoad10k(b *testing.B) {
	const changes = 2000
	m := olm.Mechanism(olm.DefaultConfig())
	cast, err := conformance.Subjects(m, nil)
	if err != nil {
		b.Fatal(err)
	}
	setup, churn := load(b, 0), load(b, changes)
	var base, full time.Duration
	var calls, runs int
	for b.Loop() {
		for _, r := range []struct {
			sc   *scenarios.Scenario
			wall *time.Duration
		}{{setup, &base}, {churn, &full}} {
			run, _ := conformance.Play(context.Background(), api.Client, m, r.sc, cast, conformance.Options{Prefix: prefix()})
			if run.Error != "" {
				b.Fatal(run.Error)
			}
			for _, c := range run.Cases {
				if c.Status == reports.Fail {
					b.Fatalf("%s: %s", c.Rule, c.Message)
				}
			}
			*r.wall += run.Wall
			if r.sc == churn {
				calls += run.APICalls
			}
		}
		runs++
	}
	b.ReportMetric(base.Seconds()/float64(runs), "setup-wall-s")
	b.ReportMetric(full.Seconds()/float64(runs), "wall-s")
	b.ReportMetric(float64(changes*runs)/(full-base).Seconds(), "changes/s")
	b.ReportMetric(float64(calls)/float64(runs), "api-calls")
}
