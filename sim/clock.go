package sim

import (
	"time"

	testingclock "k8s.io/utils/clock/testing"
)

// Epoch is the virtual instant every simulated run starts at.
var Epoch = time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)

// NewClock returns a fake clock standing at Epoch.
func NewClock() *testingclock.FakeClock { return testingclock.NewFakeClock(Epoch) }
