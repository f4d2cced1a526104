package staticpod

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/opcert/opcert/conformance/staticpod/contract"
)

const fallbackMessage = "Revision 5 did not become ready within 5m0s: /readyz is not ok; unfinished post-start hooks: etcd"

// fellBack is the mirror pod of revision 4 a fallback from revision 5 left,
// uid telling one fallback from the next.
func fellBack(uid string, reason contract.Reason) *contract.Mirror {
	return &contract.Mirror{Name: "kas-node", UID: uid, Revision: 4, Ready: true, Annotations: map[string]string{
		contract.AnnotationFallbackForRevision: "5",
		contract.AnnotationFallbackReason:      string(reason),
		contract.AnnotationFallbackMessage:     fallbackMessage,
	}}
}

func running(revision int, ready bool) *contract.Mirror {
	return &contract.Mirror{Name: "kas-node", UID: "run", Revision: revision, Ready: ready}
}

// node is a node whose target is revision 5, its mirror pod m.
func node(m *contract.Mirror) contract.Node {
	return contract.Node{Target: 5, Mirror: m, Termination: "E0101 flag provided but not defined: -foo"}
}

// step is one look of the operator, and what it must decide.
type step struct {
	at       time.Duration
	node     contract.Node
	degraded bool
	reason   contract.Reason
	contains []string // in the message
	retry    bool
	next     time.Duration
}

func walkOperator(t *testing.T, p OperatorParams, steps []step) {
	t.Helper()
	var mem *contract.Fallback
	for i, s := range steps {
		d := Operate(p, mem, s.node, at(s.at))
		want := metav1.ConditionFalse
		if s.degraded {
			want = metav1.ConditionTrue
		}
		c := d.Condition
		if c.Type != p.ConditionType || c.Status != want || (s.degraded && c.Reason != string(s.reason)) {
			t.Fatalf("look %d at %v: %s=%s %s, want %s %s", i, s.at, c.Type, c.Status, c.Reason, want, s.reason)
		}
		for _, sub := range s.contains {
			if !strings.Contains(c.Message, sub) {
				t.Errorf("look %d at %v: message %q, want it to contain %q", i, s.at, c.Message, sub)
			}
		}
		if d.Retry != s.retry {
			t.Fatalf("look %d at %v: retry %v, want %v", i, s.at, d.Retry, s.retry)
		}
		if !d.Next.Equal(instant(s.next)) {
			t.Fatalf("look %d at %v: next %v, want %v", i, s.at, d.Next, instant(s.next))
		}
		mem = d.Memory
	}
}

func TestOperator(t *testing.T) {
	seed, lib := Seed().Operator, LibraryGo().Operator
	m := time.Minute

	t.Run("003 §User Stories 2 and 3: Degraded carries the fallback message and the termination message", func(t *testing.T) {
		walkOperator(t, seed, []step{
			{at: 0, node: node(fellBack("a", contract.NotReady)), degraded: true, reason: contract.NotReady, next: 10 * m, contains: []string{
				"Revision 5 failed to become ready and the node fell back to revision 4 (NotReady): " + fallbackMessage,
				"\nTermination message of revision 5: E0101 flag provided but not defined: -foo",
			}},
		})
	})
	t.Run("003 §User Stories 3: a termination message known only later is taken then", func(t *testing.T) {
		late := node(fellBack("a", contract.CrashLooping))
		late.Termination = ""
		walkOperator(t, seed, []step{
			{at: 0, node: late, degraded: true, reason: contract.CrashLooping, next: never},
			{at: m, node: node(fellBack("a", contract.CrashLooping)), degraded: true, reason: contract.CrashLooping, next: never, contains: []string{"Termination message of revision 5"}},
		})
	})
	for _, r := range []contract.Reason{contract.NotReady, contract.EtcdUnhealthy, contract.Unhealthy} {
		t.Run("003 §Retries: "+string(r)+" is retried 10m after the fallback, Degraded throughout", func(t *testing.T) {
			walkOperator(t, seed, []step{
				{at: 0, node: node(fellBack("a", r)), degraded: true, reason: r, next: 10 * m},
				{at: 10*m - 1, node: node(fellBack("a", r)), degraded: true, reason: r, next: 10 * m},
				{at: 10 * m, node: node(fellBack("a", r)), degraded: true, reason: r, retry: true, next: never},
				// the retry not landed yet: the same fallback, no second retry
				{at: 10*m + time.Second, node: node(fellBack("a", r)), degraded: true, reason: r, next: never},
				{at: 11 * m, node: node(running(5, false)), degraded: true, reason: r, next: never},
				{at: 11 * m, node: node(nil), degraded: true, reason: r, next: never},
				// it falls back again: retry 2 is 20m after this fallback
				{at: 16 * m, node: node(fellBack("b", r)), degraded: true, reason: r, next: 36 * m},
				{at: 36 * m, node: node(fellBack("b", r)), degraded: true, reason: r, retry: true, next: never},
				// the retried revision becomes ready
				{at: 38 * m, node: node(running(5, true)), next: never},
				{at: 39 * m, node: node(running(5, true)), next: never},
			})
		})
	}
	for _, r := range []contract.Reason{contract.CrashLooping, contract.NeverStartedUp} {
		t.Run("003 §Retries: no retry after "+string(r)+", Degraded stays", func(t *testing.T) {
			walkOperator(t, seed, []step{
				{at: 0, node: node(fellBack("a", r)), degraded: true, reason: r, next: never},
				{at: 10 * m, node: node(fellBack("a", r)), degraded: true, reason: r, next: never},
				{at: 100 * time.Hour, node: node(fellBack("a", r)), degraded: true, reason: r, next: never},
			})
		})
	}
	t.Run("003 §User Stories 4: a later revision is rolled out, not retried; Degraded until it is ready", func(t *testing.T) {
		six := func(m *contract.Mirror) contract.Node { n := node(m); n.Target = 6; return n }
		walkOperator(t, seed, []step{
			{at: 0, node: node(fellBack("a", contract.NotReady)), degraded: true, reason: contract.NotReady, next: 10 * m},
			{at: m, node: six(fellBack("a", contract.NotReady)), degraded: true, reason: contract.NotReady, next: never},
			{at: 20 * m, node: six(running(6, false)), degraded: true, reason: contract.NotReady, next: never},
			{at: 21 * m, node: six(running(6, true)), next: never},
		})
	})
	t.Run("003 §User Stories 4: after CrashLooping, a fixed revision clears Degraded when ready", func(t *testing.T) {
		six := func(m *contract.Mirror) contract.Node { n := node(m); n.Target = 6; return n }
		walkOperator(t, seed, []step{
			{at: 0, node: node(fellBack("a", contract.CrashLooping)), degraded: true, reason: contract.CrashLooping, next: never},
			{at: time.Hour, node: six(running(6, true)), next: never},
		})
	})
	t.Run("003 §Retries: a fallback for another revision starts its own count", func(t *testing.T) {
		other := fellBack("c", contract.NotReady)
		other.Annotations[contract.AnnotationFallbackForRevision] = "6"
		six := node(other)
		six.Target = 6
		walkOperator(t, seed, []step{
			{at: 0, node: node(fellBack("a", contract.NotReady)), degraded: true, reason: contract.NotReady, next: 10 * m},
			{at: 10 * m, node: node(fellBack("a", contract.NotReady)), degraded: true, reason: contract.NotReady, retry: true, next: never},
			{at: 20 * m, node: six, degraded: true, reason: contract.NotReady, next: 30 * m},
		})
	})
	t.Run("003 §Proposal step 1: a fallback-for-revision that is not a number is reported, never retried", func(t *testing.T) {
		odd := fellBack("a", contract.NotReady)
		odd.Annotations[contract.AnnotationFallbackForRevision] = "five"
		walkOperator(t, seed, []step{{at: 0, node: node(odd), degraded: true, reason: contract.NotReady, next: never}})
	})
	t.Run("decision 003: no fallback, not Degraded", func(t *testing.T) {
		walkOperator(t, seed, []step{
			{at: 0, node: node(running(5, true)), next: never},
			{at: 0, node: node(nil), next: never},
		})
	})

	t.Run("upstream library-go: its condition and text; every reason retried after 20m; False once the retry lands", func(t *testing.T) {
		walkOperator(t, lib, []step{
			{at: 0, node: node(fellBack("a", contract.CrashLooping)), degraded: true, reason: contract.CrashLooping, next: 20 * m,
				contains: []string{"a static pod kas-node was rolled back to revision 5 due to " + fallbackMessage}},
			{at: 20 * m, node: node(fellBack("a", contract.CrashLooping)), degraded: true, reason: contract.CrashLooping, retry: true, next: never},
			{at: 21 * m, node: node(running(5, false)), next: never},
			{at: 26 * m, node: node(fellBack("b", contract.CrashLooping)), degraded: true, reason: contract.CrashLooping, next: 66 * m},
		})
	})
}

// TestBackoff is the ladder of 003 §Retries and of library-go.
func TestBackoff(t *testing.T) {
	m := time.Minute
	for _, c := range []struct {
		name string
		b    Backoff
		want []time.Duration
	}{
		{name: "003 §Retries: from 10m, doubling, capped at 6h", b: Seed().Operator.Backoff,
			want: []time.Duration{10 * m, 20 * m, 40 * m, 80 * m, 160 * m, 320 * m, 6 * time.Hour, 6 * time.Hour}},
		{name: "upstream library-go: 10m * 2^count from count 1, capped at 2h", b: LibraryGo().Operator.Backoff,
			want: []time.Duration{20 * m, 40 * m, 80 * m, 2 * time.Hour, 2 * time.Hour}},
	} {
		t.Run(c.name, func(t *testing.T) {
			for n, want := range c.want {
				if got := c.b.Delay(n); got != want {
					t.Errorf("after %d retries: %v, want %v", n, got, want)
				}
			}
			if got := c.b.Delay(1 << 20); got != c.b.Max {
				t.Errorf("after many retries: %v, want the cap %v", got, c.b.Max)
			}
		})
	}
	t.Run("003 §Retries: the ladder as the operator walks it, each retry measured from its fallback", func(t *testing.T) {
		p := Seed().Operator
		var mem *contract.Fallback
		now := t0
		for n, want := range []time.Duration{10 * m, 20 * m, 40 * m, 80 * m, 160 * m, 320 * m, 6 * time.Hour, 6 * time.Hour} {
			d := Operate(p, mem, node(fellBack(string(rune('a'+n)), contract.EtcdUnhealthy)), now)
			if got := d.Next.Sub(now); got != want {
				t.Fatalf("fallback %d: retry after %v, want %v", n+1, got, want)
			}
			now = d.Next
			d = Operate(p, d.Memory, node(fellBack(string(rune('a'+n)), contract.EtcdUnhealthy)), now)
			if !d.Retry {
				t.Fatalf("fallback %d: no retry at %v", n+1, now.Sub(t0))
			}
			mem, now = d.Memory, now.Add(7*m) // the retry fails and falls back 7m later
		}
	})
}
