package rules

import (
	"strings"
	"testing"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// recording marks a recording gap on the timeline, as the recorder does.
func (b *builder) recording(off, verb string) *builder {
	b.add(timeline.Event{Time: at(off), Actor: "recorder", Verb: verb,
		Object: timeline.ObjectRef{Kind: timeline.KindRecording, Name: "ClusterOperator.config.openshift.io"}, Detail: "watch expired"})
	return b
}

// A slow answer whose wait overlaps a recording gap is not judged (the
// answer may have come, unseen, inside it); the same slow answer outside
// the gap still fails STALE-007.
func TestSTALE007RecordingGap(t *testing.T) {
	judge := func(b *builder) reports.Case {
		for _, c := range judge.Judge(Rules(DefaultConfig()), b.events, at("40m")) {
			if c.Rule == "STALE-007" {
				return c
			}
		}
		t.Fatal("no STALE-007")
		return reports.Case{}
	}
	inGap := newTimeline().created("0s").challenge("10m").recording("10m5s", timeline.VerbLost).
		recording("11m", timeline.VerbResumed).answer("11m")
	if c := judge(inGap); c.Status != reports.Skip || !strings.Contains(c.Message, "not judged: recording gap from +10m5s to +11m0s") {
		t.Errorf("slow answer across a gap: %s %q, want not judged", c.Status, c.Message)
	}
	outside := newTimeline().created("0s").challenge("10m").answer("11m").
		on("dns").created("12m").recording("30m", timeline.VerbLost).recording("31m", timeline.VerbResumed)
	if c := judge(outside); c.Status != reports.Fail || !strings.Contains(c.Message, "reset after 1m0s") {
		t.Errorf("slow answer before a gap: %s %q, want a failure", c.Status, c.Message)
	}
}
