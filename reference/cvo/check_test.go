package cvo

import (
	"reflect"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
)

// TestCheck holds each row of the wait table in doc.go: the checks at a
// ClusterOperator task, in the upstream's order (docs/upstream.md, seed 001).
func TestCheck(t *testing.T) {
	const etcd = 2 // the etcd ClusterOperator task of payload()
	co := func(st configv1.ClusterOperatorStatus) Cluster {
		return cluster(map[string]configv1.ClusterOperatorStatus{"etcd": st})
	}
	tasks := func(change func([]Task)) []Task {
		ts := payload("4.0.1")
		if change != nil {
			change(ts)
		}
		return ts
	}
	later := func(ts []Task) { // the ordering trap: the Deployment sorted after its ClusterOperator
		ts[2].Operator = &Ref{Index: 3, File: "0000_50_etcd_99_deployment.yaml", Namespace: "openshift-etcd", Name: "etcd-operator"}
	}
	outside := func(ts []Task) { // the operator is not in the payload
		ts[2].Operator = &Ref{Index: -1, Namespace: "openshift-etcd", Name: "etcd-operator"}
	}
	notAvailable := "Cluster operator etcd is not available"
	cases := []struct {
		name, section string
		tasks         []Task
		c             Cluster
		want          *Wait
	}{
		{"every pair matched, available, not degraded", "001 §How ClusterVersionOperator handles ClusterOperator in release image",
			tasks(nil), co(healthy(etcdVers("4.0.1"))), nil},
		{"Progressing is not checked", "docs/upstream.md, seed 001",
			tasks(nil), co(healthy(etcdVers("4.0.1"), cnd(configv1.OperatorProgressing, configv1.ConditionTrue, "Rolling", "Moving to 4.0.1"))), nil},
		{"Failing False stands for Degraded False", "decision 001",
			tasks(nil), co(without(healthy(etcdVers("4.0.1"), cnd("Failing", configv1.ConditionFalse, "", "")), configv1.OperatorDegraded)), nil},
		{"no status.versions in the manifest", "001 §What should be the contents of ClusterOperator Custom Resource in /manifests",
			tasks(func(ts []Task) { ts[2].Versions = nil }), co(healthy(etcdVers("4.0.1"))),
			&Wait{Reason: ReasonNoVersions, Fail: Stuck, Message: "Cluster operator etcd does not declare expected versions",
				Detail: "its manifest 0000_50_etcd_07_clusteroperator.yaml has no status.versions, so its conditions cannot be trusted"}},
		{"live object absent", "001 §How ClusterVersionOperator handles ClusterOperator in release image",
			tasks(nil), Cluster{},
			&Wait{Reason: ReasonNotAvailable, Fail: AfterLimit, Message: notAvailable, Detail: "it does not exist yet"}},
		{"live object absent, no operator known", "001 §How ClusterVersionOperator handles ClusterOperator in release image",
			tasks(func(ts []Task) { ts[2].Operator = nil }), Cluster{},
			&Wait{Reason: ReasonNotAvailable, Fail: AfterLimit, Message: notAvailable,
				Detail: "it does not exist, and no operator for it was found in the payload"}},
		{"Available False", "001 §How ClusterVersionOperator handles ClusterOperator in release image",
			tasks(nil), co(healthy(etcdVers("4.0.1"), cnd(configv1.OperatorAvailable, configv1.ConditionFalse, "NoQuorum", "1 of 3 members are healthy"))),
			&Wait{Reason: ReasonNotAvailable, Fail: Outage, Message: notAvailable, Detail: "it reports Available=False (NoQuorum): 1 of 3 members are healthy"}},
		{"Available missing", "001 §How ClusterVersionOperator handles ClusterOperator in release image",
			tasks(nil), co(without(healthy(etcdVers("4.0.1")), configv1.OperatorAvailable)),
			&Wait{Reason: ReasonNotAvailable, Fail: Outage, Message: notAvailable, Detail: "it reports no Available condition"}},
		{"Available before versions: unavailable at the old version", "docs/upstream.md, seed 001",
			tasks(nil), co(healthy(etcdVers("4.0.0"), cnd(configv1.OperatorAvailable, configv1.ConditionUnknown, "", ""))),
			&Wait{Reason: ReasonNotAvailable, Fail: Outage, Message: notAvailable, Detail: "it reports Available=Unknown"}},
		{"Degraded True", "docs/upstream.md, seed 001",
			tasks(nil), co(healthy(etcdVers("4.0.1"), cnd(configv1.OperatorDegraded, configv1.ConditionTrue, "MemberDown", "etcd-2 is down"))),
			&Wait{Reason: ReasonDegraded, Fail: AfterLimit, Message: "Cluster operator etcd is degraded", Detail: "it reports Degraded=True (MemberDown): etcd-2 is down"}},
		{"Failing True, Degraded's older name", "decision 001",
			tasks(nil), co(without(healthy(etcdVers("4.0.1"), cnd("Failing", configv1.ConditionTrue, "MemberDown", "etcd-2 is down")), configv1.OperatorDegraded)),
			&Wait{Reason: ReasonDegraded, Fail: AfterLimit, Message: "Cluster operator etcd is degraded", Detail: "it reports Failing=True (MemberDown): etcd-2 is down"}},
		{"neither Degraded nor Failing counts as degraded", "docs/upstream.md, seed 001",
			tasks(nil), co(without(healthy(etcdVers("4.0.1")), configv1.OperatorDegraded)),
			&Wait{Reason: ReasonDegraded, Fail: AfterLimit, Message: "Cluster operator etcd is degraded", Detail: "it reports no Degraded or Failing condition"}},
		{"operator version not reached", "001 §Version reporting during an upgrade",
			tasks(nil), co(healthy(etcdVers("4.0.0"))),
			&Wait{Reason: ReasonUpdating, Fail: Hang, Message: "Cluster operator etcd is updating versions", Detail: "it has not reached operator from 4.0.0 to 4.0.1"}},
		{"operator version not reported", "001 §Version",
			tasks(nil), co(healthy(nil)),
			&Wait{Reason: ReasonUpdating, Fail: Hang, Message: "Cluster operator etcd is updating versions", Detail: "it has not reached operator to 4.0.1"}},
		{"every pair counts, not only operator", "docs/upstream.md, seed 001",
			tasks(func(ts []Task) { ts[2].Versions = vers("operator", "4.0.1", "etcd", "3.5.0") }), co(healthy(vers("operator", "4.0.1", "etcd", "3.4.9"))),
			&Wait{Reason: ReasonUpdating, Fail: Hang, Message: "Cluster operator etcd is updating versions", Detail: "it has not reached etcd from 3.4.9 to 3.5.0"}},
		{"ordering trap: operator later, nothing live", "001 §How ClusterVersionOperator handles ClusterOperator in release image, NOTE",
			tasks(later), Cluster{},
			&Wait{Reason: ReasonOperatorLater, Fail: Stuck, Message: "Cluster operator etcd precedes its operator",
				Detail: "its manifest 0000_50_etcd_07_clusteroperator.yaml is swept before its operator, Deployment openshift-etcd/etcd-operator in 0000_50_etcd_99_deployment.yaml, " +
					"so the sweep waits for a ClusterOperator that only a later manifest can report. Order the ClusterOperator manifest after the Deployment"}},
		{"ordering trap: operator later, live at the old version", "001 §How ClusterVersionOperator handles ClusterOperator in release image, NOTE",
			tasks(later), co(healthy(etcdVers("4.0.0"))),
			&Wait{Reason: ReasonOperatorLater, Fail: Stuck, Message: "Cluster operator etcd precedes its operator",
				Detail: "its manifest 0000_50_etcd_07_clusteroperator.yaml is swept before its operator, Deployment openshift-etcd/etcd-operator in 0000_50_etcd_99_deployment.yaml, " +
					"so the sweep waits for a ClusterOperator that only a later manifest can report. Order the ClusterOperator manifest after the Deployment"}},
		{"operator later but versions already reached: no trap", "001 §How ClusterVersionOperator handles ClusterOperator in release image",
			tasks(later), co(healthy(etcdVers("4.0.1"))), nil},
		{"operator later, versions reached, degraded: an ordinary wait", "docs/upstream.md, seed 001",
			tasks(later), co(healthy(etcdVers("4.0.1"), cnd(configv1.OperatorDegraded, configv1.ConditionTrue, "MemberDown", "etcd-2 is down"))),
			&Wait{Reason: ReasonDegraded, Fail: AfterLimit, Message: "Cluster operator etcd is degraded", Detail: "it reports Degraded=True (MemberDown): etcd-2 is down"}},
		{"operator in neither payload nor cluster", "001 §How ClusterVersionOperator handles ClusterOperator in release image, NOTE",
			tasks(outside), Cluster{},
			&Wait{Reason: ReasonOperatorMissing, Fail: Stuck, Message: "Cluster operator etcd has no operator",
				Detail: "its operator, Deployment openshift-etcd/etcd-operator, is neither in the payload nor on the cluster, " +
					"so nothing reports the ClusterOperator of 0000_50_etcd_07_clusteroperator.yaml. Add the Deployment to the payload before that manifest"}},
		{"operator outside the payload but on the cluster: an ordinary wait", "001 §How ClusterVersionOperator handles ClusterOperator in release image",
			tasks(outside), Cluster{Deployments: map[string]bool{"openshift-etcd/etcd-operator": true}},
			&Wait{Reason: ReasonNotAvailable, Fail: AfterLimit, Message: notAvailable, Detail: "it does not exist yet"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := check(tc.tasks, etcd, tc.c)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%s:\ngot  %+v\nwant %+v", tc.section, got, tc.want)
			}
		})
	}
}
