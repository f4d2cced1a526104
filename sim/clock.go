package sim

import (
	"github.com/opcert/opcert/sim/timeline"
	testingclock "k8s.io/utils/clock/testing"
)

// NewClock returns a fake clock standing at timeline.Epoch.
func NewClock() *testingclock.FakeClock { return testingclock.NewFakeClock(timeline.Epoch) }
