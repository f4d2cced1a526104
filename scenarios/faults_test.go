package scenarios

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// faulty is demo (kind_test.go) with its steps replaced by these.
func faulty(steps string) string {
	return demo[:strings.Index(demo, "steps:\n")] + "steps:\n" + steps
}

func TestAPIErrorsParses(t *testing.T) {
	s, err := Parse("f.yaml", []byte(faulty(`  - at: 10m
    apiErrors: {role: operator, on: writes, code: 500, for: 5m}
  - at: 15m
    apiErrors: {role: operator, actor: operator-a, on: all, code: 429, for: 10m, retryAfter: 3s}
  - apiErrors: {role: watcher, on: reads, code: 504, for: 1m}
  - at: 30m
    apiErrors: {role: operator, on: writes, kinds: [Deployment.apps, Pod, ClusterOperator.config.openshift.io], code: 500, for: 5m}
`)))
	if err != nil {
		t.Fatal(err)
	}
	want := []APIErrors{
		{Role: "operator", On: OnWrites, Code: 500, For: Duration{5 * time.Minute}},
		{Role: "operator", Actor: "operator-a", On: OnAll, Code: 429, For: Duration{10 * time.Minute}, RetryAfter: &Duration{3 * time.Second}},
		{Role: "watcher", On: OnReads, Code: 504, For: Duration{time.Minute}},
		{Role: "operator", On: OnWrites, Kinds: []string{"Deployment.apps", "Pod", "ClusterOperator.config.openshift.io"}, Code: 500, For: Duration{5 * time.Minute}},
	}
	for i, w := range want {
		st := s.Steps[i]
		if st.APIErrors == nil || !reflect.DeepEqual(*st.APIErrors, w) || st.Action != "" {
			t.Errorf("steps[%d] = %+v (apiErrors %+v), want %+v", i, st, st.APIErrors, w)
		}
	}
	if s.Steps[2].Time != 15*time.Minute {
		t.Errorf("steps[2] at %v, want 15m (the step before's time)", s.Steps[2].Time)
	}
	if diff, err := RoundTrip(s); err != nil || diff != "" {
		t.Errorf("RoundTrip: %v %s", err, diff)
	}
}

func TestAPIErrorsErrors(t *testing.T) {
	step := func(fault string) string { return faulty("  - at: 10m\n    apiErrors: " + fault + "\n") }
	for _, tc := range []struct{ name, in, want string }{
		{"role missing", step("{on: writes, code: 500, for: 5m}"), "f.yaml:7: steps[0].apiErrors.role: required: the role; one of: operator, watcher"},
		{"role unknown", step("{role: kubelet, on: writes, code: 500, for: 5m}"), `f.yaml:7: steps[0].apiErrors.role: "kubelet" is not a role of demo whose calls go to the API server; use one of: operator, watcher`},
		{"on missing", step("{role: operator, code: 500, for: 5m}"), "steps[0].apiErrors.on: required: which calls fail: reads, writes or all"},
		{"on unknown", step("{role: operator, on: watches, code: 500, for: 5m}"), `steps[0].apiErrors.on: "watches" is not a kind of call; use reads, writes or all`},
		{"code missing", step("{role: operator, on: writes, for: 5m}"), "steps[0].apiErrors.code: required: the HTTP status of the error; one of: 409 (Conflict), 429 (TooManyRequests), 500 (InternalError), 503 (ServiceUnavailable), 504 (Timeout)"},
		{"code unknown", step("{role: operator, on: writes, code: 404, for: 5m}"), "steps[0].apiErrors.code: 404 is not an error a fault injects; use one of: 409 (Conflict)"},
		{"code not a number", step("{role: operator, on: writes, code: teapot, for: 5m}"), `steps[0].apiErrors.code: want a whole number, got "teapot"`},
		{"conflict on reads", step("{role: operator, on: all, code: 409, for: 5m}"), "steps[0].apiErrors.code: 409 (Conflict) answers writes only; give on: writes"},
		{"for missing", step("{role: operator, on: writes, code: 500}"), `steps[0].apiErrors.for: required: how long the calls fail, more than 0, like "5m"`},
		{"for without unit", step("{role: operator, on: writes, code: 500, for: 300}"), `steps[0].apiErrors.for: 300 has no unit`},
		{"for past the end", step("{role: operator, on: writes, code: 500, for: 51m}"), "steps[0].apiErrors.for: 51m0s from 10m0s ends after the scenario (duration 1h0m0s); shorten it or lengthen duration"},
		{"retryAfter on 500", step("{role: operator, on: writes, code: 500, for: 5m, retryAfter: 1s}"), "steps[0].apiErrors.retryAfter: only a 429 or a 504 carries Retry-After; leave it out"},
		{"retryAfter not whole", step("{role: operator, on: writes, code: 429, for: 5m, retryAfter: 1500ms}"), "steps[0].apiErrors.retryAfter: 1.5s is not a Retry-After; use whole seconds from 1s to 1h0m0s"},
		{"retryAfter too long", step("{role: operator, on: writes, code: 429, for: 5m, retryAfter: 2h}"), "steps[0].apiErrors.retryAfter: 2h0m0s is not a Retry-After"},
		{"kind lowercase", step("{role: operator, on: writes, kinds: [deployment.apps], code: 500, for: 5m}"), `steps[0].apiErrors.kinds[0]: "deployment.apps" is not a kind; give Kind (core: Pod) or Kind.group (Deployment.apps)`},
		{"kind as a resource", step("{role: operator, on: writes, kinds: [Pod, deployments/apps], code: 500, for: 5m}"), `steps[0].apiErrors.kinds[1]: "deployments/apps" is not a kind`},
		{"kind twice", step("{role: operator, on: writes, kinds: [Pod, Pod], code: 500, for: 5m}"), `steps[0].apiErrors.kinds[1]: "Pod" is named twice`},
		{"too many kinds", step("{role: operator, on: writes, kinds: [" + strings.Repeat("Pod, ", 32) + "Pod], code: 500, for: 5m}"), "steps[0].apiErrors.kinds: names 33 kinds; at most 32"},
		{"actor too long", step("{role: operator, actor: " + strings.Repeat("a", 254) + ", on: writes, code: 500, for: 5m}"), "steps[0].apiErrors.actor: is 254 bytes long; an actor's name is at most 253"},
		{"unknown field", step("{role: operator, on: writes, code: 500, for: 5m, kind: Pod}"), `steps[0].apiErrors: unknown field "kind"; apiErrors takes: role, actor, on, kinds, code, for, retryAfter`},
		{"with an action", faulty("  - poke: a\n    apiErrors: {role: operator, on: writes, code: 500, for: 5m}\n"), "steps[0]: has poke and apiErrors; give each action its own step"},
		{"overlap on a role", faulty("  - at: 10m\n    apiErrors: {role: operator, on: writes, code: 500, for: 5m}\n  - at: 14m\n    apiErrors: {role: operator, actor: a, on: reads, code: 503, for: 1m}\n"),
			"f.yaml:9: steps[1].apiErrors: starts at 14m0s, while the window of steps[0] (line 6) on role operator lasts until 15m0s; one fault or perturbation per role at a time"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("f.yaml", []byte(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v\nwant it to contain %q", err, tc.want)
			}
		})
	}
}

// Windows that touch, and windows on other roles, are not overlaps.
func TestAPIErrorsWindowsMayTouchAndOtherRolesOverlap(t *testing.T) {
	_, err := Parse("f.yaml", []byte(faulty(`  - at: 10m
    apiErrors: {role: operator, on: writes, code: 500, for: 5m}
  - at: 12m
    apiErrors: {role: watcher, on: writes, code: 500, for: 5m}
  - at: 15m
    apiErrors: {role: operator, on: writes, code: 503, for: 45m}
`)))
	if err != nil {
		t.Fatal(err)
	}
}

// roleless is a kind that names no roles.
func init() { RegisterKind(Kind{Mechanism: "roleless"}) }

// A kind that names no roles takes no apiErrors.
func TestAPIErrorsNeedsTheKindsRoles(t *testing.T) {
	_, err := Parse("f.yaml", []byte("name: x\nmechanism: roleless\nduration: 1h\nsteps:\n  - apiErrors: {role: operator, on: writes, code: 500, for: 5m}\n"))
	if want := "f.yaml:5: steps[0].apiErrors: mechanism roleless names no roles whose API calls opcert plays; it takes no apiErrors"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want %q", err, want)
	}
}
