package conformance

import (
	"math"
	"strings"
	"testing"

	"github.com/opcert/opcert/sim/timeline"
)

// A time scale that is not a number in (0, 1] is refused before anything
// runs: NaN, which passes every comparison made the wrong way round, used
// to be taken and made every threshold NaN.
func TestStageRefusesTimeScalesOutOfRange(t *testing.T) {
	for _, scale := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), -1, 1.5} {
		m := &Mechanism{Name: "test", Scaled: func(float64) *Mechanism { t.Fatal("scaled"); return nil }}
		if _, err := newStage(nil, nil, &timeline.Timeline{}, &m, Options{TimeScale: scale}); err == nil || !strings.Contains(err.Error(), "out of range") {
			t.Errorf("time scale %g: %v, want it refused as out of range", scale, err)
		}
	}
}
