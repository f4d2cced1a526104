package rules

import (
	"regexp"
	"time"
)

// What the rules expect, written here from the seed (and, for what a condition
// of any Kubernetes object must be, from docs/upstream.md), never taken from
// the reference they judge (the judge does not borrow from the judged).

// The object judged and who writes it (timeline contract, doc.go).
const (
	kindClusterOperator = "ClusterOperator"
	configGroup         = "config.openshift.io"
	// RoleOperator is the role of the component that reports its
	// ClusterOperator (001 §Why I want ClusterOperator: "creating and
	// updating it is the responsibility of the respective operator").
	RoleOperator = "operator"
)

// The versions field and the entry the cluster-version operator watches
// (001 §Version: "There MUST be a version with the name `operator`").
const (
	fieldVersions   = "status.versions"
	operatorVersion = "operator"
)

// The conditions of 001 §Conditions and §What should an operator report.
// Failing is Degraded's older name: the same condition (decision 001,
// conformance/clusteroperator/README.md).
const (
	condAvailable   = "Available"
	condProgressing = "Progressing"
	condFailing     = "Failing"
	condDegraded    = "Degraded"
	condUpgradeable = "Upgradeable"
)

// failingTypes are the two names of the condition that says something is
// wrong, in the order the verdicts name them.
var failingTypes = []string{condFailing, condDegraded}

// Condition statuses (docs/upstream.md, "Kubernetes conditions in general": True,
// False or Unknown).
const (
	statusTrue    = "True"
	statusFalse   = "False"
	statusUnknown = "Unknown"
)

// reasonPattern and maxReasonLength are what the API machinery asks of a
// condition's reason (docs/upstream.md, "Kubernetes conditions in general":
// metav1.Condition's validation): CamelCase, 1 to 1024 characters.
var reasonPattern = regexp.MustCompile(`^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$`)

const maxReasonLength = 1024

// maxProgressingWords is the most words a Progressing message may take:
// 001 §Conditions, "a terse, human-readable message describing the current
// state of the object in 5-10 words (the more succinct the better)". The
// lower bound is not judged (doc.go, Readings).
const maxProgressingWords = 10

// minFailingWords is the fewest words a True Failing or Degraded message
// may take: 001 §Conditions, "`Failing` should describe in detail (a few
// sentences at most) why the current controller is blocked. The detail
// should be sufficient for an engineer or support person to triage the
// problem" (doc.go, Readings).
const minFailingWords = 4

// sentenceEnds are the marks that end a sentence: an Available message is
// "a single sentence without punctuation" (001 §Conditions), so none ends
// it and none ends a sentence inside it.
const sentenceEnds = ".!?"

// sentenceBreak is a sentence end followed by space and a word that does
// not go on in lower case ("Deployed 4.0.0. Nodes updated"); the dots of a
// version ("4.0.1") or of "e.g. a" are no break.
var sentenceBreak = regexp.MustCompile(`[.!?]\s+[^\s\p{Ll}]`)

// significantRollout is how long a rollout may run without Progressing:
// 001 §Version reporting during an upgrade, "if the amount of time it
// takes to do the upgrade is significant (more than a second or two) the
// operator should report Progressing=true"; the rules take the upper
// end.
const significantRollout = 2 * time.Second

// stuckRollout is how long a rollout may make no progress before the
// component owes Failing or Degraded (001 §What should an operator
// report, honored by components 2: "reports Failing when it can't
// accomplish its task"). The seed gives no figure; 10 minutes is the
// period of 001's cousin seed 000 (a ClusterOperator whose conditions did
// not move for 10 minutes is challenged), long beside a pod's start (a
// rollout paced by its pods' readiness moves every few tens of seconds)
// and short beside the version operator's 40 minutes before it calls a
// component degraded (docs/upstream.md, "ClusterOperator contract").
const stuckRollout = 10 * time.Minute

// minNodeShare is the share of its nodes, in percent, that a component
// installed to all nodes must have exceeded to count as rolled out: 001
// §What should an operator report, honored by components 1, "or within
// some reasonable percentage if the component must be installed to all
// nodes". The seed gives no figure; the rules read "reasonable" as more
// than half (a majority: 2 of 3, 51 of 100), so an operator that stops at
// any higher share, every node included, is accepted.
const minNodeShare = 50
