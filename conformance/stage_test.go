package conformance

import (
	"math"
	"strings"
	"testing"

	"k8s.io/client-go/rest"

	"github.com/opcert/opcert/scenarios"
	"github.com/opcert/opcert/sim/timeline"
)

// A time scale that is not a number in (0, 1] is refused before anything
// runs: NaN, which passes every comparison made the wrong way round, used
// to be taken and made every threshold NaN.
func TestStageRefusesTimeScalesOutOfRange(t *testing.T) {
	for _, scale := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), -1, 1.5} {
		var m Mechanism = fakeScalable{Declared: Declare("test", "", nil, nil, nil), scaled: func(float64) Mechanism { t.Fatal("scaled"); return nil }}
		if _, err := newStage(nil, &scenarios.Scenario{}, nil, &timeline.Timeline{}, &m, Options{TimeScale: scale}); err == nil || !strings.Contains(err.Error(), "out of range") {
			t.Errorf("time scale %g: %v, want it refused as out of range", scale, err)
		}
	}
}

// A run in real time refuses apiErrors steps before anything starts,
// whoever plays in real time: an executable, a Deployment, or anyone on a
// cluster.
func TestStageRefusesAPIErrorsInRealTime(t *testing.T) {
	sc := &scenarios.Scenario{Source: "f.yaml", Steps: []scenarios.Step{{Line: 5}, {Line: 7, APIErrors: &scenarios.APIErrors{Role: "operator"}}}}
	want := "f.yaml:7: steps[1].apiErrors: API errors are injected in virtual time only, and this run is in real time"
	for name, tc := range map[string]struct {
		cast Cast
		opts Options
	}{
		"executable": {Cast{"operator": {Impl: Process{}}}, Options{}},
		"deployment": {Cast{"operator": {Impl: Deployment{}}}, Options{}},
		"cluster":    {Cast{}, Options{Cluster: &rest.Config{}}},
	} {
		var m Mechanism = Declare("test", "", nil, nil, nil)
		if _, err := newStage(nil, sc, tc.cast, &timeline.Timeline{}, &m, tc.opts); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: %v, want %q", name, err, want)
		}
	}
	var m Mechanism = Declare("test", "", nil, nil, nil)
	if st, err := newStage(nil, sc, Cast{}, &timeline.Timeline{}, &m, Options{}); err != nil || st.Sched.Realtime() {
		t.Errorf("in virtual time: %v, want the stage", err)
	}
}
