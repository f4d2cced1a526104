package cvo

import (
	"time"

	configv1 "github.com/openshift/api/config/v1"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func at(d time.Duration) time.Time { return t0.Add(d) }

// vers reads name, version pairs.
func vers(pairs ...string) []configv1.OperandVersion {
	var out []configv1.OperandVersion
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, configv1.OperandVersion{Name: pairs[i], Version: pairs[i+1]})
	}
	return out
}

func cnd(t configv1.ClusterStatusConditionType, s configv1.ConditionStatus, reason, msg string) configv1.ClusterOperatorStatusCondition {
	return configv1.ClusterOperatorStatusCondition{Type: t, Status: s, Reason: reason, Message: msg}
}

var (
	availableTrue = cnd(configv1.OperatorAvailable, configv1.ConditionTrue, "AsExpected", "Operand has deployed its version")
	degradedFalse = cnd(configv1.OperatorDegraded, configv1.ConditionFalse, "AsExpected", "")
)

// healthy is a ClusterOperator that passes every check at versions vs,
// with extra conditions replacing those of their type.
func healthy(vs []configv1.OperandVersion, extra ...configv1.ClusterOperatorStatusCondition) configv1.ClusterOperatorStatus {
	st := configv1.ClusterOperatorStatus{Versions: vs, Conditions: []configv1.ClusterOperatorStatusCondition{
		availableTrue, degradedFalse, cnd(configv1.OperatorProgressing, configv1.ConditionFalse, "AsExpected", "")}}
	for _, e := range extra {
		if c := find(st.Conditions, e.Type); c != nil {
			*c = e
		} else {
			st.Conditions = append(st.Conditions, e)
		}
	}
	return st
}

func without(st configv1.ClusterOperatorStatus, t configv1.ClusterStatusConditionType) configv1.ClusterOperatorStatus {
	var keep []configv1.ClusterOperatorStatusCondition
	for _, c := range st.Conditions {
		if c.Type != t {
			keep = append(keep, c)
		}
	}
	st.Conditions = keep
	return st
}

// etcdVers and kasVers are what the payload of release v expects.
func etcdVers(v string) []configv1.OperandVersion { return vers("operator", v) }
func kasVers(v string) []configv1.OperandVersion {
	return vers("operator", v, "kube-apiserver", map[string]string{"4.0.0": "1.12.4", "4.0.1": "1.13.0", "4.0.2": "1.13.1"}[v])
}

// payload is a small release of version v: a namespace, then each operator
// before its ClusterOperator, then a manifest of a later run level.
func payload(v string) []Task {
	return []Task{
		{Index: 0, File: "0000_00_namespaces.yaml", Kind: "Namespace", Name: "openshift-etcd"},
		{Index: 1, File: "0000_50_etcd_03_deployment.yaml", Kind: "Deployment", Namespace: "openshift-etcd", Name: "etcd-operator"},
		{Index: 2, File: "0000_50_etcd_07_clusteroperator.yaml", Kind: "ClusterOperator", Name: "etcd", ClusterOperator: true,
			Versions: etcdVers(v), Operator: &Ref{Index: 1, File: "0000_50_etcd_03_deployment.yaml", Namespace: "openshift-etcd", Name: "etcd-operator"}},
		{Index: 3, File: "0000_60_kube-apiserver_03_deployment.yaml", Kind: "Deployment", Namespace: "openshift-kube-apiserver", Name: "kube-apiserver-operator"},
		{Index: 4, File: "0000_60_kube-apiserver_07_clusteroperator.yaml", Kind: "ClusterOperator", Name: "kube-apiserver", ClusterOperator: true,
			Versions: kasVers(v), Operator: &Ref{Index: 3, File: "0000_60_kube-apiserver_03_deployment.yaml", Namespace: "openshift-kube-apiserver", Name: "kube-apiserver-operator"}},
		{Index: 5, File: "0000_90_monitoring_01_configmap.yaml", Kind: "ConfigMap", Namespace: "openshift-monitoring", Name: "rules"},
	}
}

// cluster holds the given ClusterOperators.
func cluster(cos map[string]configv1.ClusterOperatorStatus) Cluster {
	return Cluster{ClusterOperators: cos}
}

// healthyAt is a cluster whose two ClusterOperators are healthy at release v.
func healthyAt(v string) Cluster {
	return cluster(map[string]configv1.ClusterOperatorStatus{"etcd": healthy(etcdVers(v)), "kube-apiserver": healthy(kasVers(v))})
}

func release(v string) configv1.Release {
	return configv1.Release{Version: v, Image: "example.com/release:" + v}
}

// installed is a cluster that completed the installation of 4.0.0 at t0.
func installed() State {
	return Step(DefaultParams(), Install(release("4.0.0"), payload("4.0.0")), healthyAt("4.0.0"), t0).State
}

// upgrading is installed() asked for 4.0.1 at t0.
func upgrading() State {
	s, err := Upgrade(installed(), healthyAt("4.0.0"), release("4.0.1"), payload("4.0.1"))
	if err != nil {
		panic(err)
	}
	return s
}

// look is one call of Step.
type look struct {
	at time.Duration
	c  Cluster
}

// run calls Step for each look in turn, returning the last decision.
func run(p Params, s State, looks ...look) Decision {
	var d Decision
	for _, l := range looks {
		d = Step(p, s, l.c, at(l.at))
		s = d.State
	}
	return d
}

func names(ts []Task) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.File)
	}
	return out
}

// only keeps the named ClusterOperators.
func (c Cluster) only(names ...string) Cluster {
	out := Cluster{ClusterOperators: map[string]configv1.ClusterOperatorStatus{}, Deployments: c.Deployments}
	for _, n := range names {
		if st, ok := c.ClusterOperators[n]; ok {
			out.ClusterOperators[n] = st
		}
	}
	return out
}
