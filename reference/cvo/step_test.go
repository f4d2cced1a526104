package cvo

import (
	"reflect"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const (
	available   = configv1.OperatorAvailable
	progressing = configv1.OperatorProgressing
	upgradeOK   = configv1.OperatorUpgradeable
)

// conds are the ClusterVersion's conditions without their times.
type conds map[configv1.ClusterStatusConditionType]configv1.ClusterOperatorStatusCondition

func condsOf(st configv1.ClusterVersionStatus) conds {
	out := conds{}
	for _, c := range st.Conditions {
		c.LastTransitionTime = metav1.Time{}
		out[c.Type] = c
	}
	return out
}

// cv is the four conditions Step writes: Available, Failing, Progressing
// and Upgradeable (True, no message, unless given).
func cv(avail, fail, prog configv1.ClusterOperatorStatusCondition, up ...configv1.ClusterOperatorStatusCondition) conds {
	out := conds{available: avail, failing: fail, progressing: prog, upgradeOK: cnd(upgradeOK, configv1.ConditionTrue, "", "")}
	for _, u := range up {
		out[upgradeOK] = u
	}
	return out
}

var (
	notFailing   = cnd(failing, configv1.ConditionFalse, "", "")
	installing   = cnd(available, configv1.ConditionFalse, "", "Cluster has not deployed a version yet")
	deployed400  = cnd(available, configv1.ConditionTrue, "", "Cluster has deployed 4.0.0")
	deployed401  = cnd(available, configv1.ConditionTrue, "", "Cluster has deployed 4.0.1")
	unavailable  = cnd(configv1.OperatorAvailable, configv1.ConditionFalse, "NoQuorum", "1 of 3 members are healthy")
	degradedTrue = cnd(configv1.OperatorDegraded, configv1.ConditionTrue, "MemberDown", "etcd-2 is down")
)

func working(v, reason, msg string) configv1.ClusterOperatorStatusCondition {
	return cnd(progressing, configv1.ConditionTrue, reason, "Working towards "+v+": "+msg)
}

func unable(v, reason, msg string) configv1.ClusterOperatorStatusCondition {
	return cnd(progressing, configv1.ConditionTrue, reason, "Unable to apply "+v+": "+msg)
}

func failed(reason, msg string) configv1.ClusterOperatorStatusCondition {
	return cnd(failing, configv1.ConditionTrue, reason, msg)
}

// trapped is payload(v) with the etcd ClusterOperator sorted before its
// Deployment, the trap of 001's NOTE.
func trapped(v string) []Task {
	ts := payload(v)
	ts[1], ts[2] = ts[2], ts[1]
	ts[1].Index, ts[2].Index = 1, 2
	ts[2].File = "0000_50_etcd_99_deployment.yaml"
	ts[1].Operator = &Ref{Index: 2, File: ts[2].File, Namespace: "openshift-etcd", Name: "etcd-operator"}
	return ts
}

// TestStep holds the rows of the conditions table in doc.go and the
// guarantees to components of 001 §What should an operator report.
func TestStep(t *testing.T) {
	m := time.Minute
	p := DefaultParams()
	none := time.Duration(-1)
	fresh := func() State { return Install(release("4.0.0"), payload("4.0.0")) }
	co := func(etcd configv1.ClusterOperatorStatus) Cluster {
		return cluster(map[string]configv1.ClusterOperatorStatus{"etcd": etcd})
	}
	both := func(etcd, kas configv1.ClusterOperatorStatus) Cluster {
		return cluster(map[string]configv1.ClusterOperatorStatus{"etcd": etcd, "kube-apiserver": kas})
	}
	withTasks := func(s State, ts []Task) State { s.Tasks = ts; return s }
	network := func() (State, Task) {
		s := upgrading()
		s.Tasks[5].File = "0000_70_network_deployment.yaml"
		return s, s.Tasks[5]
	}
	refused := func(reason, msg string) State {
		s, task := network()
		return Refused(s, task, reason, msg, at(m))
	}
	all := []string{"0000_00_namespaces.yaml", "0000_50_etcd_03_deployment.yaml", "0000_60_kube-apiserver_03_deployment.yaml", "0000_90_monitoring_01_configmap.yaml"}
	upToEtcd := all[:2]
	etcdNotAvailable := "Cluster operator etcd is not available"
	timedOut := " The installation of 4.0.0 has not completed in 40 minutes."
	trapDetail := "its manifest 0000_50_etcd_07_clusteroperator.yaml is swept before its operator, Deployment openshift-etcd/etcd-operator in 0000_50_etcd_99_deployment.yaml, " +
		"so the sweep waits for a ClusterOperator that only a later manifest can report. Order the ClusterOperator manifest after the Deployment."
	cases := []struct {
		name, section string
		p             *Params
		s             State
		looks         []look // the last is judged
		apply         []string
		done          int
		want          conds
		next          time.Duration
		write         bool
	}{
		// Installation.
		{name: "install completes in one sweep", section: "001 §Conditions",
			s: fresh(), looks: []look{{0, healthyAt("4.0.0")}}, apply: all, done: 6, write: true, next: none,
			want: cv(deployed400, notFailing, cnd(progressing, configv1.ConditionFalse, "", "Cluster version is 4.0.0"))},
		{name: "install waits for a ClusterOperator its operator has yet to create", section: "001 §How ClusterVersionOperator handles ClusterOperator in release image",
			s: fresh(), looks: []look{{0, Cluster{}}}, apply: upToEtcd, done: 2, write: true, next: 40 * m,
			want: cv(installing, notFailing, working("4.0.0", ReasonNotAvailable, etcdNotAvailable))},
		{name: "install not failing a second before the timeout", section: "001 §What should an operator report, guarantees to components 1",
			s: fresh(), looks: []look{{0, Cluster{}}, {40*m - time.Second, co(healthy(etcdVers("4.0.0"), unavailable))}}, done: 2, next: 40 * m,
			want: cv(installing, notFailing, working("4.0.0", ReasonNotAvailable, etcdNotAvailable))},
		{name: "install fails when a component never becomes available", section: "001 §What should an operator report, guarantees to components 1",
			s: fresh(), looks: []look{{0, Cluster{}}, {40 * m, co(healthy(etcdVers("4.0.0"), unavailable))}}, done: 2, write: true, next: none,
			want: cv(installing,
				failed(ReasonNotAvailable, "Cluster operator etcd is not available: it reports Available=False (NoQuorum): 1 of 3 members are healthy."+timedOut),
				unable("4.0.0", ReasonNotAvailable, etcdNotAvailable))},
		{name: "the install timeout counts from the installation's start", section: "001 §What should an operator report, guarantees to components 1",
			s: fresh(), looks: []look{{0, Cluster{}}, {30 * m, healthyAt("4.0.0").only("etcd")}, {40 * m, healthyAt("4.0.0").only("etcd")}}, done: 4, write: true, next: none,
			want: cv(installing,
				failed(ReasonNotAvailable, "Cluster operator kube-apiserver is not available: it does not exist yet."+timedOut),
				unable("4.0.0", ReasonNotAvailable, "Cluster operator kube-apiserver is not available"))},
		{name: "install fails on a component degraded under the older name Failing", section: "decision 001",
			s: fresh(), looks: []look{{0, Cluster{}}, {40 * m, co(without(healthy(etcdVers("4.0.0"), cnd("Failing", configv1.ConditionTrue, "MemberDown", "etcd-2 is down.")), configv1.OperatorDegraded))}},
			done: 2, write: true, next: none,
			want: cv(installing,
				failed(ReasonDegraded, "Cluster operator etcd is degraded: it reports Failing=True (MemberDown): etcd-2 is down."+timedOut),
				unable("4.0.0", ReasonDegraded, "Cluster operator etcd is degraded"))},
		{name: "install fails on a component that never reports its version", section: "001 §Version",
			s: fresh(), looks: []look{{0, Cluster{}}, {40 * m, co(healthy(nil))}}, done: 2, write: true, next: none,
			want: cv(installing,
				failed(ReasonUpdating, "Cluster operator etcd is updating versions: it has not reached operator to 4.0.0."+timedOut),
				unable("4.0.0", ReasonUpdating, "Cluster operator etcd is updating versions"))},
		{name: "install timeout in other units", section: "001 §What should an operator report, guarantees to components 1",
			p: &Params{InstallTimeout: 90 * time.Second}, s: fresh(), looks: []look{{0, Cluster{}}, {2 * m, Cluster{}}}, done: 2, write: true, next: none,
			want: cv(installing,
				failed(ReasonNotAvailable, "Cluster operator etcd is not available: it does not exist yet. The installation of 4.0.0 has not completed in 1m30s."),
				unable("4.0.0", ReasonNotAvailable, etcdNotAvailable))},
		{name: "an install that failed completes once the component is available", section: "001 §Conditions",
			s: fresh(), looks: []look{{0, Cluster{}}, {40 * m, co(healthy(etcdVers("4.0.0"), unavailable))}, {50 * m, healthyAt("4.0.0")}},
			apply: all[2:], done: 6, write: true, next: none,
			want: cv(deployed400, notFailing, cnd(progressing, configv1.ConditionFalse, "", "Cluster version is 4.0.0"))},

		// Upgrade.
		{name: "upgrade hangs while a component has not reached the new version", section: "001 §What should an operator report, guarantees to components 2",
			s: upgrading(), looks: []look{{m, healthyAt("4.0.0")}}, apply: upToEtcd, done: 2, write: true, next: none,
			want: cv(deployed400, notFailing, working("4.0.1", ReasonUpdating, "Cluster operator etcd is updating versions"))},
		{name: "the hang never turns into a failure", section: "001 §What should an operator report, guarantees to components 2",
			s: upgrading(), looks: []look{{m, healthyAt("4.0.0")}, {72 * time.Hour, healthyAt("4.0.0")}}, done: 2, next: none,
			want: cv(deployed400, notFailing, working("4.0.1", ReasonUpdating, "Cluster operator etcd is updating versions"))},
		{name: "every name/version pair must be reached, not only operator", section: "docs/upstream.md, seed 001",
			s: upgrading(), looks: []look{{m, both(healthy(etcdVers("4.0.1")), healthy(vers("operator", "4.0.1", "kube-apiserver", "1.12.4")))}},
			apply: all[:3], done: 4, write: true, next: none,
			want: cv(deployed400, notFailing, working("4.0.1", ReasonUpdating, "Cluster operator kube-apiserver is updating versions"))},
		{name: "upgrade completes", section: "001 §Conditions",
			s: upgrading(), looks: []look{{m, healthyAt("4.0.1")}}, apply: all, done: 6, write: true, next: none,
			want: cv(deployed401, notFailing, cnd(progressing, configv1.ConditionFalse, "", "Cluster version is 4.0.1"))},
		{name: "a degraded component is waited on up to 40 minutes", section: "docs/upstream.md, seed 001",
			s: upgrading(), looks: []look{{m, co(healthy(etcdVers("4.0.1"), degradedTrue))}, {40 * m, co(healthy(etcdVers("4.0.1"), degradedTrue))}}, done: 2, next: 41 * m,
			want: cv(deployed400, notFailing, working("4.0.1", ReasonDegraded, "Cluster operator etcd is degraded"))},
		{name: "a component degraded for 40 minutes fails the upgrade", section: "docs/upstream.md, seed 001",
			s: upgrading(), looks: []look{{m, co(healthy(etcdVers("4.0.1"), degradedTrue))}, {41 * m, co(healthy(etcdVers("4.0.1"), degradedTrue))}}, done: 2, write: true, next: none,
			want: cv(deployed400,
				failed(ReasonDegraded, "Cluster operator etcd is degraded: it reports Degraded=True (MemberDown): etcd-2 is down. The upgrade to 4.0.1 has waited 40 minutes on it."),
				unable("4.0.1", ReasonDegraded, "Cluster operator etcd is degraded"))},
		{name: "the 40 minutes count per component", section: "docs/upstream.md, seed 001",
			s: upgrading(), looks: []look{{m, co(healthy(etcdVers("4.0.1"), degradedTrue))}, {30 * m, both(healthy(etcdVers("4.0.1")), healthy(kasVers("4.0.1"), degradedTrue))},
				{41 * m, both(healthy(etcdVers("4.0.1")), healthy(kasVers("4.0.1"), degradedTrue))}}, done: 4, next: 70 * m,
			want: cv(deployed400, notFailing, working("4.0.1", ReasonDegraded, "Cluster operator kube-apiserver is degraded"))},
		{name: "the limit in other units", section: "docs/upstream.md, seed 001",
			p: &Params{FailAfter: m}, s: upgrading(), looks: []look{{0, Cluster{}}, {m, Cluster{}}}, done: 2, write: true, next: none,
			want: cv(deployed400,
				failed(ReasonNotAvailable, "Cluster operator etcd is not available: it does not exist yet. The upgrade to 4.0.1 has waited 1 minute on it."),
				unable("4.0.1", ReasonNotAvailable, etcdNotAvailable))},
		{name: "an unavailable component fails the upgrade at once", section: "docs/upstream.md, seed 001",
			s: upgrading(), looks: []look{{m, co(healthy(etcdVers("4.0.1"), unavailable))}}, apply: upToEtcd, done: 2, write: true, next: none,
			want: cv(deployed400,
				failed(ReasonNotAvailable, "Cluster operator etcd is not available: it reports Available=False (NoQuorum): 1 of 3 members are healthy."),
				unable("4.0.1", ReasonNotAvailable, etcdNotAvailable))},
		{name: "a new component is waited on like a degraded one", section: "001 §How ClusterVersionOperator handles ClusterOperator in release image",
			s: upgrading(), looks: []look{{m, Cluster{}}}, apply: upToEtcd, done: 2, write: true, next: 41 * m,
			want: cv(deployed400, notFailing, working("4.0.1", ReasonNotAvailable, etcdNotAvailable))},
		{name: "a manifest without versions fails at once", section: "001 §What should be the contents of ClusterOperator Custom Resource in /manifests",
			s:     withTasks(upgrading(), func() []Task { ts := payload("4.0.1"); ts[2].Versions = nil; return ts }()),
			looks: []look{{m, healthyAt("4.0.1")}}, apply: upToEtcd, done: 2, write: true, next: none,
			want: cv(deployed400,
				failed(ReasonNoVersions, "Cluster operator etcd does not declare expected versions: its manifest 0000_50_etcd_07_clusteroperator.yaml has no status.versions, so its conditions cannot be trusted."),
				unable("4.0.1", ReasonNoVersions, "Cluster operator etcd does not declare expected versions"))},

		// The ordering trap.
		{name: "install: a ClusterOperator sorted before its operator is said plainly", section: "001 §How ClusterVersionOperator handles ClusterOperator in release image, NOTE",
			s: Install(release("4.0.0"), trapped("4.0.0")), looks: []look{{0, Cluster{}}}, apply: all[:1], done: 1, write: true, next: none,
			want: cv(installing, failed(ReasonOperatorLater, "Cluster operator etcd precedes its operator: "+trapDetail),
				unable("4.0.0", ReasonOperatorLater, "Cluster operator etcd precedes its operator"))},
		{name: "upgrade: the old operator cannot report the new version", section: "001 §How ClusterVersionOperator handles ClusterOperator in release image, NOTE",
			s: withTasks(upgrading(), trapped("4.0.1")), looks: []look{{m, healthyAt("4.0.0")}}, apply: all[:1], done: 1, write: true, next: none,
			want: cv(deployed400, failed(ReasonOperatorLater, "Cluster operator etcd precedes its operator: "+trapDetail),
				unable("4.0.1", ReasonOperatorLater, "Cluster operator etcd precedes its operator"))},
		{name: "an operator in neither the payload nor the cluster is said plainly", section: "001 §How ClusterVersionOperator handles ClusterOperator in release image, NOTE",
			s: withTasks(upgrading(), func() []Task {
				ts := payload("4.0.1")
				ts[2].Operator = &Ref{Index: -1, Namespace: "openshift-etcd", Name: "etcd-operator"}
				return ts
			}()), looks: []look{{m, healthyAt("4.0.0")}}, apply: upToEtcd, done: 2, write: true, next: none,
			want: cv(deployed400, failed(ReasonOperatorMissing, "Cluster operator etcd has no operator: its operator, Deployment openshift-etcd/etcd-operator, is neither in the payload nor on the cluster, "+
				"so nothing reports the ClusterOperator of 0000_50_etcd_07_clusteroperator.yaml. Add the Deployment to the payload before that manifest."),
				unable("4.0.1", ReasonOperatorMissing, "Cluster operator etcd has no operator"))},

		// Manifests the cluster refuses.
		{name: "a refused manifest, the seed's example", section: "001 §Conditions",
			s:     refused(ReasonResourceTypeMissing, "the resource type NetworkConfig has not been installed on the server"),
			looks: []look{{m, healthyAt("4.0.1")}}, done: 5, write: true, next: 2 * m,
			want: cv(deployed400,
				failed(ReasonResourceTypeMissing, "Unable to apply 4.0.1: could not update 0000_70_network_deployment.yaml because the resource type NetworkConfig has not been installed on the server."),
				unable("4.0.1", ReasonResourceTypeMissing, "a required object is missing"))},
		{name: "another refusal names the file", section: "001 §Conditions",
			s:     refused("UpdatePayloadResourceInvalid", "spec.replicas is invalid"),
			looks: []look{{m, healthyAt("4.0.1")}}, done: 5, write: true, next: 2 * m,
			want: cv(deployed400,
				failed("UpdatePayloadResourceInvalid", "Unable to apply 4.0.1: could not update 0000_70_network_deployment.yaml because spec.replicas is invalid."),
				unable("4.0.1", "UpdatePayloadResourceInvalid", "could not update 0000_70_network_deployment.yaml"))},
		{name: "a refused manifest is applied again after RetryAfter", section: "001 §Conditions",
			s:     refused(ReasonResourceTypeMissing, "the resource type NetworkConfig has not been installed on the server"),
			looks: []look{{m, healthyAt("4.0.1")}, {2 * m, healthyAt("4.0.1")}}, apply: []string{"0000_70_network_deployment.yaml"}, done: 6, write: true, next: none,
			want: cv(deployed401, notFailing, cnd(progressing, configv1.ConditionFalse, "", "Cluster version is 4.0.1"))},

		// Upgradeable and quiet steps.
		{name: "a component's Upgradeable=False is shown on the ClusterVersion", section: "001 §What should an operator report, guarantees to components 3",
			s: installed(), looks: []look{{m, co(healthy(etcdVers("4.0.0"), cnd(upgradeOK, configv1.ConditionFalse, "NodesBehind", "Nodes are at 3.11; upgrade them first")))}},
			done: 6, write: true, next: none,
			want: cv(deployed400, notFailing, cnd(progressing, configv1.ConditionFalse, "", "Cluster version is 4.0.0"),
				cnd(upgradeOK, configv1.ConditionFalse, "NodesBehind", "Cluster operator etcd should not be upgraded: Nodes are at 3.11; upgrade them first"))},
		{name: "nothing changed: nothing to write", section: "001 §Conditions",
			s: installed(), looks: []look{{5 * m, healthyAt("4.0.0")}}, done: 6, next: none,
			want: cv(deployed400, notFailing, cnd(progressing, configv1.ConditionFalse, "", "Cluster version is 4.0.0"))},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pp := p
			if tc.p != nil {
				pp = *tc.p
			}
			d := run(pp, tc.s, tc.looks...)
			if got := names(d.Apply); !reflect.DeepEqual(got, tc.apply) {
				t.Errorf("%s: applied %q, want %q", tc.section, got, tc.apply)
			}
			if d.State.Done != tc.done {
				t.Errorf("%s: done %d, want %d", tc.section, d.State.Done, tc.done)
			}
			if got := condsOf(d.State.Status); !reflect.DeepEqual(got, tc.want) {
				for k, w := range tc.want {
					if got[k] != w {
						t.Errorf("%s: %s\ngot  %+v\nwant %+v", tc.section, k, got[k], w)
					}
				}
			}
			next := time.Time{}
			if tc.next != none {
				next = at(tc.next)
			}
			if !d.Next.Equal(next) {
				t.Errorf("%s: next %v, want %v", tc.section, d.Next, next)
			}
			if (d.Write != nil) != tc.write {
				t.Errorf("%s: write %v, want %v", tc.section, d.Write != nil, tc.write)
			}
			if d.Write != nil && !reflect.DeepEqual(*d.Write, d.State.Status) {
				t.Errorf("the write is not the state's status")
			}
		})
	}
}
