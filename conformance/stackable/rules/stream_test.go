package rules

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// goldens are the built-ins' golden timelines, by file name (the load's
// is kept as its digest only).
func goldens(t *testing.T) map[string][]timeline.Event {
	t.Helper()
	files, err := filepath.Glob("../testdata/golden/*.jsonl")
	if err != nil || len(files) < 10 {
		t.Fatalf("golden timelines: %v, %d files", err, len(files))
	}
	out := map[string][]timeline.Event{}
	for _, f := range files {
		in, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		d := timeline.NewDecoder(in)
		for {
			e, err := d.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			out[filepath.Base(f)] = append(out[filepath.Base(f)], e)
		}
		in.Close()
	}
	return out
}

// streamed judges events as opcert analyze and watch do: a stream whose
// tolerance is given ahead, so that the rules judge as the events pass
// and keep none of them; its cases without the scenario's expectations.
func streamed(cfg Config, events []timeline.Event, end time.Time) []reports.Case {
	s := judge.NewStream(judge.Rulebook{Rules: Rules(cfg), Online: []judge.Online{Online(cfg)}})
	s.Start = timeline.Epoch
	s.Tolerate(0)
	for _, e := range events {
		s.Add(e)
	}
	cases, _ := s.Judge(end)
	return cases[:len(cases)-1]
}

// Judged as it streams, every built-in's golden timeline gets the
// verdicts its events held whole get, in both profiles, with and without
// a reaction bound, the stories' windows trimmed at every event or as
// they are by default, the timeline ending at its last event or after.
func TestStreamJudgesAsBatch(t *testing.T) {
	defer func(n int) { trimAfter = n }(trimAfter)
	rs := DefaultConfig()
	rs.Profile = ProfileOperatorRS
	judged := 0
	for name, events := range goldens(t) {
		last := events[len(events)-1].Time
		for _, cfg := range []Config{DefaultConfig(), {Reaction: 5 * time.Second}, {}, rs} {
			for _, trim := range []int{1, 128} {
				for _, end := range []time.Time{last, last.Add(time.Hour)} {
					trimAfter = trim
					batch := judge.Judge(Rules(cfg), events, end)
					online := streamed(cfg, events, end)
					what := fmt.Sprintf("%s, %+v, trimmed after %d, ending %s", name, cfg, trim, end.Sub(last))
					if !reflect.DeepEqual(online, batch) {
						t.Fatalf("%s:\n online %+v\n batch  %+v", what, online, batch)
					}
					for _, c := range batch {
						if c.Status == reports.Pass {
							judged++
						}
					}
				}
			}
		}
	}
	if judged == 0 {
		t.Fatal("no rule passed on any golden timeline: nothing was compared")
	}
}

// A long timeline is judged in a window: a pod failing and recovering
// every two minutes for two days, the operator following, is judged with
// a story of no more than a few hundred events at any time, and as the
// same events held whole are.
func TestStreamHoldsAWindow(t *testing.T) {
	tl := started()
	for k := range 1440 {
		fail, recover := fmt.Sprintf("%ds", 60+120*k), fmt.Sprintf("%ds", 120+120*k)
		tl.pod(fail, "server", "c1-server-1", "Failed").counted(fail, server, 1).
			status(fail, unavailable(), podFailed("[c1-server-1]"), degraded("[c1-server-1]", "[Failed]"), reconciling(), running()).
			pod(recover, "server", "c1-server-1", "Running").counted(recover, server, 2).
			status(recover, available(), settled(), notDegraded(), reconciling(), running())
	}
	end := tl.events[len(tl.events)-1].Time
	g := openJudging(DefaultConfig(), timeline.Epoch)
	most := 0
	for _, e := range tl.events {
		g.Read(e)
		for _, cj := range g.clusters {
			most = max(most, len(cj.s.events))
		}
	}
	if n := len(tl.events); n < 8000 || most > 2*trimAfter {
		t.Errorf("%d events, a story's window held up to %d; want thousands of events in a window of at most %d", n, most, 2*trimAfter)
	}
	t.Logf("%d events, a story window of at most %d", len(tl.events), most)
	j := judge.NewJudging(tl.events, end)
	j.Start = timeline.Epoch
	online := g.Verdicts(end)
	for i, rule := range Rules(DefaultConfig()) {
		batch := rule.Check(j)
		if !reflect.DeepEqual(online[i], batch) {
			t.Errorf("%s: online %s %q, batch %s %q", rule.ID, online[i].Status, online[i].Message, batch.Status, batch.Message)
		}
		if rule.ID == "STACKABLE-001" && (batch.Status != reports.Pass || len(batch.Measures) != 1 || batch.Measures[0].Count < 2000) {
			t.Errorf("%s: %s %q, measures %+v; want every change judged and measured", rule.ID, batch.Status, batch.Message, batch.Measures)
		}
	}
}

// A workload and pods recorded before their cluster (a recording that
// listed them first) are the cluster's from its first write, as they
// stand: its Available True, with both replicas up, passes.
func TestObjectsBeforeTheirCluster(t *testing.T) {
	tl := newTimeline().process("0s", timeline.VerbStart).
		workload("0s", RoleOperator, server, 2).
		pod("0s", "server", "c1-server-0", "Running").pod("0s", "server", "c1-server-1", "Running").
		counted("0s", server, 2).
		cluster("1s", "", roles()).
		status("1s", available(), settled(), notDegraded(), reconciling(), running())
	if v := Rules(DefaultConfig())[r001].Check(newJudging(tl)); v.Status != reports.Pass {
		t.Errorf("STACKABLE-001 %s: %s", v.Status, v.Message)
	}
}
