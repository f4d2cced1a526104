package component

import (
	"fmt"
	"time"

	configv1 "github.com/openshift/api/config/v1"
)

// look is one look in a walk: the operator's version, then what it
// observes but its own status, which the walk carries from look to look.
type look struct {
	at      time.Duration
	version string
	in      Input
}

// story is an install and an upgrade with every event the flaws need:
// the first pods ready one by one, a blocker, a rolling upgrade with a
// surge pod, a stall long enough to be stuck, an apply error, completion
// and a quiet look after it.
var story = []look{
	{1 * m, "4.0.0", Input{Operands: []Operand{dep(3, "", 0)}}},
	{2 * m, "4.0.0", Input{Operands: []Operand{dep(3, "4.0.0", 1*m, pod("a", "4.0.0", true, 2*m), pod("b", "4.0.0", false, 2*m))}}},
	{3 * m, "4.0.0", Input{Operands: []Operand{dep(3, "4.0.0", 1*m, pod("a", "4.0.0", true, 2*m), pod("b", "4.0.0", true, 3*m), pod("c", "4.0.0", true, 3*m))}}},
	{4 * m, "4.0.0", Input{Operands: []Operand{dep(3, "4.0.0", 1*m, pod("a", "4.0.0", true, 2*m), pod("b", "4.0.0", true, 3*m), pod("c", "4.0.0", true, 3*m))},
		Blockers: []Blocker{{Reason: "UnsupportedLogLevel", Message: "Set spec.logLevel of operator config example to Normal, Debug or Trace"}}}},
	{5 * m, "4.0.1", Input{Operands: []Operand{dep(3, "4.0.0", 1*m, pod("a", "4.0.0", true, 2*m), pod("b", "4.0.0", true, 3*m), pod("c", "4.0.0", true, 3*m))}}},
	{6 * m, "4.0.1", Input{Operands: []Operand{dep(3, "4.0.1", 5*m, pod("a", "4.0.0", true, 2*m), pod("b", "4.0.0", true, 3*m), pod("c", "4.0.0", true, 3*m), pod("d", "4.0.1", false, 6*m))}}},
	{7 * m, "4.0.1", Input{Operands: []Operand{dep(3, "4.0.1", 5*m, pod("b", "4.0.0", true, 3*m), pod("c", "4.0.0", true, 3*m), pod("d", "4.0.1", true, 7*m))}}},
	{20 * m, "4.0.1", Input{Operands: []Operand{dep(3, "4.0.1", 5*m, pod("b", "4.0.0", true, 3*m), pod("c", "4.0.0", true, 3*m), pod("d", "4.0.1", true, 7*m))}}},
	{21 * m, "4.0.1", Input{Operands: []Operand{dep(3, "4.0.1", 5*m, pod("b", "4.0.0", true, 3*m), pod("c", "4.0.0", true, 3*m), pod("d", "4.0.1", true, 7*m))},
		ApplyError: &ApplyError{Summary: "a required object is missing", Detail: "could not update configmap example-config: namespace example is being deleted"}}},
	{22 * m, "4.0.1", Input{Operands: []Operand{dep(3, "4.0.1", 5*m, pod("c", "4.0.0", true, 3*m), pod("d", "4.0.1", true, 7*m), pod("e", "4.0.1", true, 22*m))}}},
	{23 * m, "4.0.1", Input{Operands: []Operand{dep(3, "4.0.1", 5*m, pod("d", "4.0.1", true, 7*m), pod("e", "4.0.1", true, 22*m), pod("f", "4.0.1", true, 23*m))}}},
	{30 * m, "4.0.1", Input{Operands: []Operand{dep(3, "4.0.1", 5*m, pod("d", "4.0.1", true, 7*m), pod("e", "4.0.1", true, 22*m), pod("f", "4.0.1", true, 23*m))}}},
}

// played is one look of a walk: its input (with the status carried), its
// output, and the status after it.
type played struct {
	look
	in    Input
	out   Output
	after configv1.ClusterOperatorStatus
}

// walk plays looks with the given flaws, each look seeing the status the
// previous one left.
func walk(looks []look, flaws ...Flaw) []played {
	var status configv1.ClusterOperatorStatus
	var ps []played
	for _, l := range looks {
		p := params(l.version)
		p.Flaws = flaws
		in := l.in
		in.Status = status
		out := p.Step(in, at(l.at))
		status = after(in, out)
		ps = append(ps, played{look: l, in: in, out: out, after: status})
	}
	return ps
}

// differences names what differs between two looks' results: the fields
// of the status after them ("versions", "Available.message"...), a
// status written in several updates ("split"), the specs and the next
// deadline.
func differences(a, b played) []string {
	var d []string
	if !sameVersions(a.after.Versions, b.after.Versions) {
		d = append(d, "versions")
	}
	for _, typ := range owned {
		x, xok := condition(a.after.Conditions, typ)
		y, yok := condition(b.after.Conditions, typ)
		switch {
		case xok != yok:
			d = append(d, string(typ))
		case !xok:
		default:
			for _, f := range []struct {
				name string
				same bool
			}{
				{"status", x.Status == y.Status},
				{"reason", x.Reason == y.Reason},
				{"message", x.Message == y.Message},
				{"lastTransitionTime", x.LastTransitionTime.Equal(&y.LastTransitionTime)},
			} {
				if !f.same {
					d = append(d, string(typ)+"."+f.name)
				}
			}
		}
	}
	// Whether a look writes at all follows from the status it leaves;
	// writing it in more than one update is a difference of its own.
	if (len(a.out.Writes) > 1) != (len(b.out.Writes) > 1) {
		d = append(d, "split")
	}
	if fmt.Sprint(a.out.Specs) != fmt.Sprint(b.out.Specs) {
		d = append(d, "specs")
	}
	if !a.out.Next.Equal(b.out.Next) {
		d = append(d, "next")
	}
	return d
}
