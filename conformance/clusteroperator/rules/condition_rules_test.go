package rules

import (
	"testing"
	"time"

	"github.com/opcert/opcert/reports"
)

// 001 §Conditions, §Version reporting during an upgrade; docs/upstream.md,
// "Kubernetes conditions in general".
func TestCO020ValidConditions(t *testing.T) {
	progressing := func(status, message string) cond { return c(condProgressing, status, message) }
	second := Config{Tolerance: time.Second}
	runTable(t, "CO-020", []ruleCase{
		{name: "the seed's upgrade: transitions move lastTransitionTime", tl: upgraded(), want: reports.Pass, message: []string{"7 judged"}},
		{name: "no reason at all", tl: newTimeline().write("0s", "etcd", c(condAvailable, statusTrue, "Cluster is up").because("")), want: reports.Pass},
		{name: "a reason with the separators Kubernetes allows",
			tl: newTimeline().write("0s", "etcd", c(condAvailable, statusTrue, "Cluster is up").because("Rolled_Out,Ready:3")), want: reports.Pass},
		{name: "Progressing stamped at the upgrade's completion (version changed, status False stayed)",
			tl: newTimeline().upgrade("0s", "etcd", "4.0.0", progressing(statusFalse, "Cluster version is 4.0.0")).
				upgrade("5m", "etcd", "4.0.1", progressing(statusFalse, "Cluster version is 4.0.0").at("5m")),
			want: reports.Pass},
		{name: "Progressing stamped with its message changed (no versions recorded)",
			tl: newTimeline().write("0s", "etcd", progressing(statusFalse, "Cluster version is 4.0.0")).
				write("5m", "etcd", progressing(statusFalse, "Cluster version is 4.0.1").at("5m")),
			want: reports.Pass},
		{name: "Progressing stamped with the second the API server keeps",
			tl: newTimeline().upgrade("0s", "etcd", "4.0.0", progressing(statusFalse, "Cluster version is 4.0.0")).
				upgrade("5m0.9s", "etcd", "4.0.1", progressing(statusFalse, "Cluster version is 4.0.1").at("5m")),
			want: reports.Pass},
		{name: "Progressing stamped 1.5s before the write, within a tolerance of 1s",
			tl: newTimeline().upgrade("0s", "etcd", "4.0.0", progressing(statusTrue, "Working towards 4.0.0")).
				upgrade("5m1.5s", "etcd", "4.0.1", progressing(statusTrue, "Working towards 4.0.2").at("5m")),
			cfg: &second, want: reports.Pass},
		{name: "another role's writes are not judged",
			tl:   newTimeline().writeAs("detector", "0s", "etcd", "", c(condAvailable, "Yes", "Cluster is up")),
			want: reports.Skip, message: []string{"not judged: the operator wrote no condition"}},
		{name: "status none of the three",
			tl:   newTimeline().write("0s", "etcd", c(condAvailable, "Yes", "Cluster is up")),
			want: reports.Fail, message: []string{`ClusterOperator/etcd Available at +0s: status "Yes" is none of True, False and Unknown`}, evidence: []string{"0s"}},
		{name: "a reason that is no CamelCase word is CO-026's (Style), not a fault of validity",
			tl:   upgraded().write("7m", "etcd", c(condUpgradeable, statusFalse, "Nodes must be updated first").because("nodes not updated")),
			want: reports.Pass},
		{name: "lastTransitionTime moved with the status kept",
			tl:   upgraded().write("7m", "etcd", c(condAvailable, statusTrue, "Cluster has deployed 4.0.1").at("7m")),
			want: reports.Fail, message: []string{"ClusterOperator/etcd Available at +7m0s: lastTransitionTime moved from +0s to +7m0s while the status stayed True"}, evidence: []string{"7m"}},
		{name: "Available stamped at the upgrade's completion: only Progressing may be",
			tl: newTimeline().upgrade("0s", "etcd", "4.0.0", c(condAvailable, statusTrue, "Cluster has deployed 4.0.0")).
				upgrade("5m", "etcd", "4.0.1", c(condAvailable, statusTrue, "Cluster has deployed 4.0.1").at("5m")),
			want: reports.Fail, message: []string{"Available at +5m0s: lastTransitionTime moved from +0s to +5m0s"}, evidence: []string{"5m"}},
		{name: "Progressing stamped with nothing completed",
			tl: newTimeline().upgrade("0s", "etcd", "4.0.0", progressing(statusFalse, "Cluster version is 4.0.0")).
				write("5m", "etcd", progressing(statusFalse, "Cluster version is 4.0.0").at("5m")),
			want: reports.Fail, message: []string{"Progressing at +5m0s: lastTransitionTime moved from +0s to +5m0s while the status stayed False"}, evidence: []string{"5m"}},
		{name: "Progressing stamped at another time than the upgrade's write",
			tl: newTimeline().upgrade("0s", "etcd", "4.0.0", progressing(statusFalse, "Cluster version is 4.0.0")).
				upgrade("5m", "etcd", "4.0.1", progressing(statusFalse, "Cluster version is 4.0.1").at("4m")),
			want: reports.Fail, message: []string{"moved from +0s to +4m0s"}, evidence: []string{"5m"}},
		{name: "Progressing stamped 1.5s before the write, exact",
			tl: newTimeline().upgrade("0s", "etcd", "4.0.0", progressing(statusTrue, "Working towards 4.0.0")).
				upgrade("5m1.5s", "etcd", "4.0.1", progressing(statusTrue, "Working towards 4.0.2").at("5m")),
			want: reports.Fail, message: []string{"moved from +0s to +5m0s"}, evidence: []string{"5m1.5s"}},
		{name: "the status changed, lastTransitionTime kept",
			tl:   upgraded().write("7m", "etcd", c(condAvailable, statusFalse, "Cluster has lost etcd quorum").at("0s")),
			want: reports.Fail, message: []string{"ClusterOperator/etcd Available at +7m0s: the status went True -> False but lastTransitionTime stayed at +0s"}, evidence: []string{"7m"}},
		{name: "two transitions within one second in real time: the second's time is its own",
			tl: newTimeline().write("0.2s", "etcd", c(condAvailable, statusFalse, "Cluster is installing").at("0s")).
				write("0.9s", "etcd", c(condAvailable, statusTrue, "Cluster has deployed 4.0.0").at("0s")),
			cfg: &second, want: reports.Pass},
		{name: "the status changed, lastTransitionTime kept from a second before, in real time",
			tl: newTimeline().write("0s", "etcd", c(condAvailable, statusFalse, "Cluster is installing").at("0s")).
				write("3s", "etcd", c(condAvailable, statusTrue, "Cluster has deployed 4.0.0").at("0s")),
			cfg: &second, want: reports.Fail, message: []string{"the status went False -> True but lastTransitionTime stayed at +0s"}, evidence: []string{"3s"}},
		{name: "two transitions in one instant in virtual time: False, True and back, one lastTransitionTime",
			tl: upgraded().write("7m", "etcd", c(condAvailable, statusFalse, "Component etcd has no ready pods")).
				write("7m", "etcd", c(condAvailable, statusTrue, "Cluster has deployed 4.0.1").at("7m")),
			want: reports.Pass},
		{name: "two faults of one write, shown once",
			tl: upgraded().write("7m", "etcd", c(condAvailable, "true", "Cluster is up"),
				c(condUpgradeable, statusFalse, "Nodes must be updated first").at("0s")),
			want: reports.Fail, message: []string{`status "true"`, "(and 1 more)"}, evidence: []string{"7m"}},
		{name: "every fault counted, each with its write",
			tl: upgraded().write("7m", "etcd", c(condAvailable, "true", "Cluster is up")).
				write("8m", "dns", c(condDegraded, "false", "")),
			want: reports.Fail, message: []string{`status "true"`, "(and 1 more)"}, evidence: []string{"7m", "8m"}},
	})
}

// The godoc of ClusterOperator conditions (001 §Conditions refers to it):
// "reason is the CamelCase reason for the condition's current status";
// docs/upstream.md, "Kubernetes conditions in general" for the pattern.
func TestCO026CamelCaseReasons(t *testing.T) {
	runTable(t, "CO-026", []ruleCase{
		{name: "the seed's upgrade", tl: upgraded(), want: reports.Pass, message: []string{"4 judged"}},
		{name: "no reason at all: not judged", tl: newTimeline().write("0s", "etcd", c(condAvailable, statusTrue, "Cluster is up").because("")),
			want: reports.Skip, message: []string{"not judged: the operator set no reason"}},
		{name: "a reason with the separators Kubernetes allows",
			tl: newTimeline().write("0s", "etcd", c(condAvailable, statusTrue, "Cluster is up").because("Rolled_Out,Ready:3")), want: reports.Pass},
		{name: "a reason that is no CamelCase word",
			tl:   upgraded().write("7m", "etcd", c(condUpgradeable, statusFalse, "Nodes must be updated first").because("nodes not updated")),
			want: reports.Fail, message: []string{`ClusterOperator/etcd Upgradeable at +7m0s: reason "nodes not updated" is not CamelCase`}, evidence: []string{"7m"}},
		{name: "a reason ending in a separator",
			tl:   newTimeline().write("0s", "etcd", c(condAvailable, statusTrue, "Cluster is up").because("Ready:")),
			want: reports.Fail, message: []string{`reason "Ready:"`}, evidence: []string{"0s"}},
		{name: "a reason kept is judged once",
			tl: newTimeline().write("0s", "etcd", c(condAvailable, statusTrue, "Cluster is up").because("up!")).
				write("1m", "etcd", c(condAvailable, statusTrue, "Cluster is up and well").because("up!")),
			want: reports.Fail, message: []string{`reason "up!"`}, evidence: []string{"0s"}},
	})
}

// 001 §Conditions: "`Failing` should describe in detail ... sufficient for an
// engineer or support person to triage the problem"; decision 001,
// conformance/clusteroperator/README.md: Failing and Degraded are one
// condition.
func TestCO024DetailedFailing(t *testing.T) {
	runTable(t, "CO-024", []ruleCase{
		{name: "the seed's blocked upgrade", tl: blocked(), want: reports.Pass, message: []string{"1 judged", "ClusterOperator/etcd uses Degraded"}},
		{name: "four words",
			tl: upgraded().write("10m", "etcd", c(condDegraded, statusTrue, "Quorum lost: 2 members")), want: reports.Pass},
		{name: "the older name, Failing",
			tl:   newTimeline().write("0s", "etcd", c(condFailing, statusTrue, seedFailing)),
			want: reports.Pass, message: []string{"ClusterOperator/etcd uses Failing"}},
		{name: "never True: not judged, the name still said",
			tl: upgraded(), want: reports.Skip, message: []string{"never reported Failing or Degraded True", "ClusterOperator/etcd uses Degraded"}},
		{name: "both names, and a ClusterOperator with neither",
			tl: blocked().write("11m", "etcd", c(condFailing, statusTrue, seedFailing)).
				write("12m", "dns", c(condAvailable, statusTrue, "DNS is served")),
			want: reports.Pass, message: []string{"2 judged", "ClusterOperator/etcd uses both Failing and Degraded", "ClusterOperator/dns reports neither Failing nor Degraded"}},
		{name: "a terse Degraded",
			tl:   upgraded().write("10m", "etcd", c(condDegraded, statusTrue, "Deployment failed")),
			want: reports.Fail, message: []string{`ClusterOperator/etcd Degraded=True at +10m0s: message "Deployment failed" has 2 words, fewer than 4`, "uses Degraded"},
			evidence: []string{"10m"}},
		{name: "a True Failing without a message",
			tl:   newTimeline().write("0s", "etcd", c(condFailing, statusTrue, "")),
			want: reports.Fail, message: []string{"ClusterOperator/etcd Failing=True at +0s: no message, fewer than 4 words", "uses Failing"}, evidence: []string{"0s"}},
		{name: "a message changed while True is judged again",
			tl:   blocked().write("11m", "etcd", c(condDegraded, statusTrue, "Broken")),
			want: reports.Fail, message: []string{`message "Broken" has 1 word`}, evidence: []string{"11m"}},
	})
}

// 001 §What should an operator report, honored by components 4: "The
// component should include a message that describes what must be fixed."
func TestCO025UpgradeableExplained(t *testing.T) {
	runTable(t, "CO-025", []ruleCase{
		{name: "a message saying what to fix",
			tl:   upgraded().write("7m", "etcd", c(condUpgradeable, statusFalse, "Nodes are at 4.0: update them before the control plane")),
			want: reports.Pass, message: []string{"1 judged"}},
		{name: "never False: not judged", tl: upgraded(), want: reports.Skip, message: []string{"never reported Upgradeable=False"}},
		{name: "no message",
			tl:   upgraded().write("7m", "etcd", c(condUpgradeable, statusFalse, "")),
			want: reports.Fail, message: []string{"ClusterOperator/etcd Upgradeable=False at +7m0s has no message: it must describe what must be fixed"}, evidence: []string{"7m"}},
		{name: "white space only, after a message",
			tl: upgraded().write("7m", "etcd", c(condUpgradeable, statusFalse, "Nodes are at 4.0: update them")).
				write("8m", "etcd", c(condUpgradeable, statusFalse, "  ")),
			want: reports.Fail, message: []string{"+8m0s has no message"}, evidence: []string{"8m"}},
	})
}
