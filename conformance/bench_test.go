package conformance_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/conformancetest"
	"github.com/opcert/opcert/conformance/stale"
	"github.com/opcert/opcert/scenarios"
	"github.com/opcert/opcert/sim/timeline"
)

// BenchmarkStale plays scenarios on the shared API server and reports, per
// run: virtual seconds per wall second, API calls, the API floor (calls x
// the median call latency measured in the same run), wall time over that
// floor, and the detector's writes (the most in one cycle of one
// ClusterOperator, and the total to operators that kept moving).
//
//	go test -run '^$' -bench . -benchtime 1x ./conformance/
func BenchmarkStale(b *testing.B) {
	all, err := scenarios.Builtin()
	if err != nil {
		b.Fatal(err)
	}
	for _, sc := range append(all, busyFleet(b)) {
		b.Run(sc.Name, func(b *testing.B) { benchScenario(b, sc) })
	}
}

func benchScenario(b *testing.B, sc *scenarios.Scenario) {
	m := stale.Mechanism(stale.DefaultConfig())
	subjects, err := conformance.Subjects(m, nil)
	if err != nil {
		b.Fatal(err)
	}
	var cycleMax, moving int
	t := conformancetest.PlayLoop(b, api.Client, m, sc, subjects, prefix, func(tl *timeline.Timeline) {
		c, mv := detectorWrites(tl.Events())
		cycleMax, moving = max(cycleMax, c), moving+mv
	})
	b.ReportMetric(sc.Duration.Seconds()*float64(t.Runs)/t.Wall.Seconds(), "virtual-s/s")
	b.ReportMetric(float64(t.Calls)/float64(t.Runs), "api-calls")
	b.ReportMetric(t.Floor.Seconds()/float64(t.Runs), "floor-s")
	b.ReportMetric(t.Wall.Seconds()/t.Floor.Seconds(), "x-floor")
	b.ReportMetric(float64(cycleMax), "det-writes/cycle")
	b.ReportMetric(float64(moving)/float64(t.Runs), "det-writes-moving")
}

// detectorWrites returns the most detector writes to one ClusterOperator
// between two movements of its conditions, and how many detector writes
// went to a ClusterOperator within 10 minutes of its last movement.
func detectorWrites(events []timeline.Event) (cycleMax, moving int) {
	type track struct {
		moved time.Time
		n     int
	}
	byName := map[string]*track{}
	for _, e := range events {
		if e.Object.Kind != "ClusterOperator" || !e.IsWrite() || len(e.Conditions) == 0 {
			continue
		}
		t := byName[e.Object.Name]
		if t == nil {
			t = &track{}
			byName[e.Object.Name] = t
		}
		if e.Role != stale.RoleDetector {
			t.moved, t.n = e.Time, 0
			continue
		}
		t.n++
		cycleMax = max(cycleMax, t.n)
		if e.Time.Sub(t.moved) < 10*time.Minute {
			moving++
		}
	}
	return cycleMax, moving
}

// busyFleet is 35 operators whose Progressing message changes every 5
// minutes for 2 hours: the detector must not write to any of them.
func busyFleet(b *testing.B) *scenarios.Scenario {
	var y strings.Builder
	y.WriteString(`name: stale-busy-fleet-2h
mechanism: stale
duration: 2h
operators:
  - name: busy
    count: 35
    conditions:
      - {type: Available, status: "True", reason: AsExpected, message: "All is well"}
      - {type: Progressing, status: "False", reason: AsExpected, message: "step 0"}
steps:
`)
	for t := 5 * time.Minute; t < 2*time.Hour; t += 5 * time.Minute {
		for i := 1; i <= 35; i++ {
			fmt.Fprintf(&y, "  - {at: %s, setCondition: {operator: busy-%02d, type: Progressing, status: \"False\", reason: AsExpected, message: \"step %s\"}}\n", t, i, t)
		}
	}
	sc, err := scenarios.Parse("bench:busy-fleet", []byte(y.String()))
	if err != nil {
		b.Fatal(err)
	}
	return sc
}
