package conformancetest

import (
	"context"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/scenarios"
	"github.com/opcert/opcert/sim/timeline"
)

// Builtins are a mechanism's built-in scenarios.
func Builtins(mechanism string) []*scenarios.Scenario {
	all, err := scenarios.Builtin()
	if err != nil {
		panic(err) // embedded files, checked by every test that loads them
	}
	var out []*scenarios.Scenario
	for _, sc := range all {
		if sc.Mechanism == mechanism {
			out = append(out, sc)
		}
	}
	return out
}

// Totals are what a benchmark's runs of one scenario added up to.
type Totals struct {
	// Runs is how many runs were played and Calls how many API calls they made.
	Runs, Calls int
	Wall, Floor time.Duration // Floor: calls x each run's median call
}

// PlayLoop plays sc with cast on c for each iteration of b.Loop, each run
// under its own prefix, failing the benchmark on a run that stops or a
// rule that fails, and hands each run's timeline to each (nil: none).
func PlayLoop(b *testing.B, c client.Client, m conformance.Mechanism, sc *scenarios.Scenario, cast conformance.Cast,
	prefix func() string, each func(*timeline.Timeline)) Totals {
	var t Totals
	for b.Loop() {
		run, tl := conformance.Play(context.Background(), c, m, sc, cast, conformance.Options{Prefix: prefix()})
		if run.Error != "" {
			b.Fatal(run.Error)
		}
		for _, cs := range run.Cases {
			if cs.Status == reports.Fail {
				b.Fatalf("%s: %s", cs.Rule, cs.Message)
			}
		}
		if each != nil {
			each(tl)
		}
		t.Runs++
		t.Wall += run.Wall
		t.Calls += run.APICalls
		t.Floor += time.Duration(run.APICalls) * run.MedianCall
	}
	return t
}
