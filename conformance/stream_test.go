package conformance_test

import (
	"testing"

	"github.com/opcert/opcert/conformance/conformancetest"
	"github.com/opcert/opcert/conformance/stale"
)

// A timeline judged as it streams past (the mechanism's online facts, no
// events kept) gets the cases it gets when judged whole, on every golden
// timeline of the built-in stale scenarios.
func TestStreamJudgesAsTheWholeTimeline(t *testing.T) {
	m := stale.Mechanism(stale.DefaultConfig())
	for _, g := range conformancetest.GoldenTimelines(t) {
		conformancetest.StreamsAsBatch(t, m, g.Name, g.Events, g.End)
	}
}
