package stale

import (
	"time"

	configv1 "github.com/openshift/api/config/v1"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/opcert/opcert/conformance/stale/faithful"
	"github.com/opcert/opcert/reference/operator"
)

// ownOperatorImpl makes an operator subject written apart from the
// reference (a faithful variant, or a broken one that cannot be had by
// changing the reference's delay or comparison) for one ClusterOperator:
// its answer delay and the conditions its operand reports.
type ownOperatorImpl func(c client.Client, clk clock.PassiveClock, name string, delay time.Duration, want []operator.Condition) operatorProcess

// operatorProcess is a running operator the world can tell what its
// operand reports and how fast to answer.
type operatorProcess interface {
	reconcile.Reconciler
	Set(operator.Condition)
	SetAnswerDelay(time.Duration)
}

// ownDetectorImpl makes a detector subject written apart from the
// reference, judged with the run's two waits and the silence its mark
// states.
type ownDetectorImpl func(c client.Client, clk clock.PassiveClock, challengeAfter, unknownAfter, silence time.Duration) reconcile.Reconciler

// faithfulDetector is a detector of conformance/stale/faithful.
func faithfulDetector(opts faithful.DetectorOptions) ownDetectorImpl {
	return func(c client.Client, clk clock.PassiveClock, challengeAfter, unknownAfter, silence time.Duration) reconcile.Reconciler {
		o := opts
		o.ChallengeAfter, o.UnknownAfter, o.Silence = challengeAfter, unknownAfter, silence
		return faithful.NewDetector(c, clk, o)
	}
}

// faithfulOperator is an operator of conformance/stale/faithful.
func faithfulOperator(opts faithful.OperatorOptions) ownOperatorImpl {
	return func(c client.Client, clk clock.PassiveClock, name string, delay time.Duration, want []operator.Condition) operatorProcess {
		conds := make([]configv1.ClusterOperatorStatusCondition, 0, len(want))
		for _, w := range want {
			conds = append(conds, asStatus(w))
		}
		return faithfulProcess{faithful.NewOperator(c, clk, name, delay, conds, opts)}
	}
}

// faithfulProcess tells a faithful operator what its operand reports in
// the API's type, which is all it knows.
type faithfulProcess struct{ *faithful.Operator }

func (p faithfulProcess) Set(c operator.Condition) { p.Operator.Set(asStatus(c)) }

func asStatus(c operator.Condition) configv1.ClusterOperatorStatusCondition {
	return configv1.ClusterOperatorStatusCondition{Type: c.Type, Status: c.Status, Reason: c.Reason, Message: c.Message}
}
