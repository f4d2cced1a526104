package scenarios

import (
	"strings"
	"testing"
	"time"
)

func TestPerturbParsesAndRoundTrips(t *testing.T) {
	s, err := Parse("f.yaml", []byte(faulty(`  - at: 1m
    perturb: {role: operator, crash: {afterWrites: 3}}
  - at: 10m
    perturb: {role: operator, actor: operator-a, lostEvents: {for: 2m}}
  - at: 12m
    perturb: {role: operator, lateEvents: {for: 2m, delay: 20s}}
  - at: 12m
    perturb: {role: watcher, staleReads: {for: 5m, lag: 30s}}
  - at: 20m
    perturb: {role: watcher, crash: {afterWrites: 1, restartAfter: 30s}}
`)))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, st := range s.Steps {
		got = append(got, st.Perturb.Kind()+" "+st.Perturb.String())
	}
	want := []string{
		"crash crash operator after write 3",
		"lostEvents operator-a: notifications lost for 2m0s",
		"lateEvents operator: notifications 20s late for 2m0s",
		"staleReads watcher: reads 30s stale for 5m0s",
		"crash crash watcher after write 1, restarted 30s later",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("perturb steps:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if end, ok := s.PerturbEnd(); !ok || end != 20*time.Minute {
		t.Errorf("PerturbEnd = %v %v, want 20m (the crash's step; the windows end at 17m)", end, ok)
	}
	if u := s.Unperturbed(); u.Perturbed() || len(u.Steps) != 0 || !s.Perturbed() {
		t.Errorf("Unperturbed kept %d steps", len(u.Steps))
	}
	if diff, err := RoundTrip(s); err != nil || diff != "" {
		t.Errorf("RoundTrip: %v %s", err, diff)
	}
}

func TestPerturbErrors(t *testing.T) {
	step := func(p string) string { return faulty("  - at: 10m\n    perturb: " + p + "\n") }
	for _, tc := range []struct{ name, in, want string }{
		{"role missing", step("{crash: {afterWrites: 1}}"), "steps[0].perturb.role: required: the role; one of: operator, watcher"},
		{"role unknown", step("{role: kubelet, crash: {afterWrites: 1}}"), `steps[0].perturb.role: "kubelet" is not a role of demo`},
		{"none", step("{role: operator}"), "steps[0].perturb: give exactly one of crash, lostEvents, lateEvents, staleReads"},
		{"two", step("{role: operator, crash: {afterWrites: 1}, lostEvents: {for: 1m}}"), "steps[0].perturb: give exactly one of"},
		{"write 0", step("{role: operator, crash: {afterWrites: 0}}"), "steps[0].perturb.crash.afterWrites: 0 is not a write"},
		{"restart negative", step("{role: operator, crash: {afterWrites: 1, restartAfter: -1s}}"), "steps[0].perturb.crash.restartAfter: -1s is out of range"},
		{"for missing", step("{role: operator, lostEvents: {}}"), "steps[0].perturb.lostEvents.for: required"},
		{"for past the end", step("{role: operator, lostEvents: {for: 55m}}"), "steps[0].perturb.lostEvents.for: 55m0s from 10m0s ends after the scenario"},
		{"delay missing", step("{role: operator, lateEvents: {for: 1m}}"), "steps[0].perturb.lateEvents.delay: required"},
		{"lag missing", step("{role: operator, staleReads: {for: 1m}}"), "steps[0].perturb.staleReads.lag: required"},
		{"lag on lost", step("{role: operator, lostEvents: {for: 1m, lag: 1s}}"), "steps[0].perturb.lostEvents.lag: is not a field of this perturbation"},
		{"delay too long", step("{role: operator, lateEvents: {for: 1m, delay: 25h}}"), "steps[0].perturb.lateEvents.delay: 25h0m0s is out of range"},
		{"unknown field", step("{role: operator, crash: {afterWrite: 1}}"), `unknown field "afterWrite"`},
		{"overlaps apiErrors", faulty("  - at: 10m\n    apiErrors: {role: operator, on: writes, code: 500, for: 5m}\n  - at: 11m\n    perturb: {role: operator, lostEvents: {for: 1m}}\n"),
			"steps[1].perturb: starts at 11m0s, while the window of steps[0] (line 6) on role operator lasts until 15m0s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("f.yaml", []byte(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v\nwant it to contain %q", err, tc.want)
			}
		})
	}
}
