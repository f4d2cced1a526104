package judge

import (
	"strings"
	"testing"
	"time"

	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// write is a status write by actor of role at +d leaving cond at status.
func write(d time.Duration, role, object, cond, status string) timeline.Event {
	c := &timeline.Condition{Type: cond, Status: status, Reason: "R", Message: "m " + d.String()}
	return timeline.Event{Time: timeline.Epoch.Add(d), Actor: role, Role: role, Verb: timeline.VerbUpdateStatus,
		Object: timeline.ObjectRef{Kind: "ClusterOperator", Name: object}, Conditions: []timeline.ConditionChange{{Type: cond, After: c}}}
}

func TestConvergence(t *testing.T) {
	m := time.Minute
	base := []timeline.Event{write(0, "operator", "etcd", "Available", "True"), write(10*m, "operator", "etcd", "Degraded", "False")}
	crash := timeline.Event{Time: timeline.Epoch.Add(5 * m), Actor: "operator", Role: "operator", Verb: timeline.VerbKill,
		Object: timeline.ObjectRef{Kind: timeline.KindProcess, Name: "operator"}, Detail: timeline.PerturbationDetail + "crash after write 1"}
	restart := timeline.Event{Time: timeline.Epoch.Add(6 * m), Actor: "operator", Role: "operator", Verb: timeline.VerbStart,
		Object: timeline.ObjectRef{Kind: timeline.KindProcess, Name: "operator"}}
	window := timeline.Event{Time: timeline.Epoch.Add(5 * m), Actor: "operator", Role: "operator", Verb: timeline.VerbFault,
		Object: crash.Object, Detail: timeline.PerturbationDetail + "notifications lost"}
	cleared := window
	cleared.Time, cleared.Verb = timeline.Epoch.Add(6*m), timeline.VerbClear
	for _, tc := range []struct {
		name      string
		perturbed []timeline.Event
		end       time.Duration
		status    reports.Status
		message   string
	}{
		{"same end, other words and times", []timeline.Event{write(0, "operator", "etcd", "Available", "True"), crash, restart,
			write(6*m, "operator", "etcd", "Available", "True"), write(11*m, "operator", "etcd", "Degraded", "False")}, 30 * m,
			reports.Pass, "1 object(s) of the operator end with the unperturbed run's conditions (their last change at +11m0s)"},
		{"never wrote Degraded", []timeline.Event{write(0, "operator", "etcd", "Available", "True"), crash, restart}, 30 * m,
			reports.Fail, "ClusterOperator/etcd Degraded absent (unperturbed False)"},
		{"ends unlike", []timeline.Event{write(0, "operator", "etcd", "Available", "True"), crash, restart,
			write(10*m, "operator", "etcd", "Degraded", "True")}, 30 * m, reports.Fail, "Degraded True (unperturbed False)"},
		{"reaches it late, backing off", []timeline.Event{write(0, "operator", "etcd", "Available", "True"), crash, restart,
			write(25*m, "operator", "etcd", "Degraded", "False")}, 30 * m, reports.Pass, "their last change at +25m0s"},
		{"ends too soon to judge", []timeline.Event{write(0, "operator", "etcd", "Available", "True"), crash, restart}, 10*m + 30*time.Second,
			reports.Skip, "not judged: the run ends at +10m30s, before +13m0s"},
		{"wrote nothing", nil, 30 * m, reports.Fail, "Available absent (unperturbed True)"},
		{"a step killed it after", []timeline.Event{write(0, "operator", "etcd", "Available", "True"), crash, restart,
			{Time: timeline.Epoch.Add(8 * m), Actor: "operator", Role: "operator", Verb: timeline.VerbKill, Object: crash.Object}}, 30 * m,
			reports.Skip, "but the scenario stopped the operator after the perturbations: it could not converge"},
		{"a step held it down as they ended: owed once it is back", []timeline.Event{write(0, "operator", "etcd", "Available", "True"), window, cleared,
			{Time: timeline.Epoch.Add(6 * m), Actor: "operator", Role: "operator", Verb: timeline.VerbKill, Object: crash.Object},
			{Time: timeline.Epoch.Add(20 * m), Actor: "operator", Role: "operator", Verb: timeline.VerbStart, Object: crash.Object},
			write(25*m, "operator", "etcd", "Degraded", "False")}, 40 * m,
			reports.Pass, "their last change at +25m0s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			over, span := Perturbations(tc.perturbed, timeline.Epoch)
			c := Convergence{Role: "operator", Unperturbed: base, Perturbed: tc.perturbed, Origin: timeline.Epoch,
				Over: over, Span: span, End: timeline.Epoch.Add(tc.end), Bound: m}.Judge()
			if c.Status != tc.status || !strings.Contains(c.Message, tc.message) {
				t.Errorf("%s: %s, want %s containing %q", c.Status, c.Message, tc.status, tc.message)
			}
			if c.Status == reports.Fail && len(tc.perturbed) > 0 && (len(c.Evidence) == 0 || c.Evidence[0].Verb != timeline.VerbKill) {
				t.Errorf("evidence %v, want the crash first", c.Evidence)
			}
		})
	}
	if over, span := Perturbations([]timeline.Event{crash, restart}, timeline.Epoch); !over.Equal(timeline.Epoch.Add(6*m)) || span != m {
		t.Errorf("Perturbations = %v %v, want the restart at +6m, a span of 1m", over, span)
	}
	// A window's failed calls are retried as long after it: its writes
	// come up to twice its length late.
	conflicts := func(at time.Duration, verb string) timeline.Event {
		return timeline.Event{Time: timeline.Epoch.Add(at), Actor: "operator", Role: "operator", Verb: verb,
			Object: timeline.ObjectRef{Kind: timeline.KindProcess, Name: "operator"}, Detail: timeline.PerturbationDetail + "writes fail with 409 Conflict"}
	}
	if over, span := Perturbations([]timeline.Event{conflicts(5*m, timeline.VerbFault), conflicts(6*m, timeline.VerbClear)}, timeline.Epoch); !over.Equal(timeline.Epoch.Add(7*m)) || span != 2*m {
		t.Errorf("Perturbations = %v %v, want over at +7m (the retry after the clear), a span of 2m", over, span)
	}
}
