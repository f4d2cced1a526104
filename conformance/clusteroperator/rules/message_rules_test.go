package rules

import (
	"testing"

	"github.com/opcert/opcert/reports"
)

// 001 §Conditions: "All messages should start with a capital letter (like
// a sentence)".
func TestCO021Capitalized(t *testing.T) {
	runTable(t, "CO-021", []ruleCase{
		{name: "the seed's messages", tl: blocked(), want: reports.Pass, message: []string{"7 judged"}},
		{name: "a digit starts a sentence too",
			tl: newTimeline().write("0s", "etcd", c(condProgressing, statusTrue, "3 of 5 members are updated")), want: reports.Pass},
		{name: "leading space is passed over",
			tl: newTimeline().write("0s", "etcd", c(condAvailable, statusTrue, " Cluster is up")), want: reports.Pass},
		{name: "empty messages: not judged",
			tl:   newTimeline().write("0s", "etcd", c(condDegraded, statusFalse, ""), c(condUpgradeable, statusTrue, "")),
			want: reports.Skip, message: []string{"set no condition message"}},
		{name: "lower case",
			tl:   upgraded().write("7m", "etcd", c(condAvailable, statusTrue, "cluster has deployed 4.0.1")),
			want: reports.Fail, message: []string{`ClusterOperator/etcd Available at +7m0s: message "cluster has deployed 4.0.1" starts with 'c', not a capital letter`},
			evidence: []string{"7m"}},
		{name: "any condition type, judged once where the message is set",
			tl: upgraded().write("7m", "etcd", c(condUpgradeable, statusFalse, "nodes are at 4.0")).
				write("8m", "etcd", c(condUpgradeable, statusUnknown, "nodes are at 4.0")),
			want: reports.Fail, message: []string{"Upgradeable at +7m0s", "starts with 'n'"}, evidence: []string{"7m"}},
		{name: "a long message is quoted in part",
			tl:   newTimeline().write("0s", "etcd", c(condDegraded, statusTrue, "unable to apply 4.0.1: could not update 0000_70_network_deployment.yaml because the resource type NetworkConfig has not been installed")),
			want: reports.Fail, message: []string{`"unable to apply 4.0.1: could not update 0000_70_network_deployment.yaml because..."`}, evidence: []string{"0s"}},
	})
}

// 001 §Conditions: Progressing "should be a terse, human-readable message
// describing the current state of the object in 5-10 words (the more
// succinct the better)".
func TestCO022TerseProgressing(t *testing.T) {
	runTable(t, "CO-022", []ruleCase{
		{name: "the seed's messages, 3 and 4 words too", tl: upgraded(), want: reports.Pass, message: []string{"3 judged"}},
		{name: "the seed's blocked message, 9 words", tl: blocked(), want: reports.Pass, message: []string{"4 judged"}},
		{name: "10 words",
			tl: newTimeline().write("0s", "etcd", c(condProgressing, statusTrue, "Rolling out revision 7 to 2 of 3 control-plane nodes")), want: reports.Pass},
		{name: "no Progressing message: not judged",
			tl:   newTimeline().write("0s", "etcd", c(condProgressing, statusFalse, ""), c(condAvailable, statusTrue, "Cluster is up")),
			want: reports.Skip, message: []string{"set no Progressing message"}},
		{name: "11 words",
			tl:   upgraded().write("7m", "etcd", c(condProgressing, statusTrue, "Rolling out revision 7 to 2 of 3 control plane nodes")),
			want: reports.Fail, message: []string{`ClusterOperator/etcd Progressing at +7m0s: message "Rolling out revision 7 to 2 of 3 control plane nodes" has 11 words, over 10`},
			evidence: []string{"7m"}},
		{name: "the details belong in Degraded",
			tl:   newTimeline().write("0s", "etcd", c(condProgressing, statusTrue, seedFailing)),
			want: reports.Fail, message: []string{"has 20 words, over 10"}, evidence: []string{"0s"}},
	})
}

// 001 §Conditions: Available should "be a single sentence without
// punctuation".
func TestCO023OneSentenceAvailable(t *testing.T) {
	available := func(message string) *builder {
		return upgraded().write("7m", "etcd", c(condAvailable, statusTrue, message))
	}
	runTable(t, "CO-023", []ruleCase{
		{name: "the seed's messages, a version's dots included", tl: upgraded(), want: reports.Pass, message: []string{"2 judged"}},
		{name: "an abbreviation going on in lower case", tl: available("Serving e.g. metrics and logs"), want: reports.Pass},
		{name: "no Available message: not judged",
			tl:   newTimeline().write("0s", "etcd", c(condAvailable, statusTrue, "")),
			want: reports.Skip, message: []string{"set no Available message"}},
		{name: "a full stop",
			tl:   available("Cluster has deployed 4.0.1."),
			want: reports.Fail, message: []string{`ClusterOperator/etcd Available at +7m0s: message "Cluster has deployed 4.0.1." ends with '.'`}, evidence: []string{"7m"}},
		{name: "an exclamation mark before trailing space",
			tl: available("Cluster is up! "), want: reports.Fail, message: []string{"ends with '!'"}, evidence: []string{"7m"}},
		{name: "two sentences",
			tl:   available("Deployed 4.0.0. Nodes are updated"),
			want: reports.Fail, message: []string{`message "Deployed 4.0.0. Nodes are updated" holds more than one sentence`}, evidence: []string{"7m"}},
		{name: "a question, then a number",
			tl: available("Is it up? 3 of 5 members answer"), want: reports.Fail, message: []string{"more than one sentence"}, evidence: []string{"7m"}},
	})
}
