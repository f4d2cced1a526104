package component

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	configv1 "github.com/openshift/api/config/v1"
)

// owned are the condition types the operator writes; Degraded and Failing
// both, so that switching names leaves no stale one behind.
var owned = []configv1.ClusterStatusConditionType{
	configv1.OperatorAvailable, configv1.OperatorProgressing, configv1.OperatorDegraded, Failing, configv1.OperatorUpgradeable,
}

// foreign are the conditions others own, kept as they are.
func foreign(conds []configv1.ClusterOperatorStatusCondition) []configv1.ClusterOperatorStatusCondition {
	var out []configv1.ClusterOperatorStatusCondition
	for _, c := range conds {
		if !slices.Contains(owned, c.Type) {
			out = append(out, *c.DeepCopy())
		}
	}
	return out
}

func condition(conds []configv1.ClusterOperatorStatusCondition, t configv1.ClusterStatusConditionType) (configv1.ClusterOperatorStatusCondition, bool) {
	i := slices.IndexFunc(conds, func(c configv1.ClusterOperatorStatusCondition) bool { return c.Type == t })
	if i < 0 {
		return configv1.ClusterOperatorStatusCondition{}, false
	}
	return conds[i], true
}

func conditionStatus(conds []configv1.ClusterOperatorStatusCondition, t configv1.ClusterStatusConditionType) configv1.ConditionStatus {
	c, _ := condition(conds, t)
	return c.Status
}

// sameConditions compares type by type: the order of status.conditions
// means nothing, so a reordering is no change worth a write.
func sameConditions(a, b []configv1.ClusterOperatorStatusCondition) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		y, ok := condition(b, x.Type)
		if !ok || x.Status != y.Status || x.Reason != y.Reason || x.Message != y.Message ||
			!x.LastTransitionTime.Equal(&y.LastTransitionTime) {
			return false
		}
	}
	return true
}

// sameVersions compares name by name, as the version operator matches
// them (docs/upstream.md: every name/version pair).
func sameVersions(a, b []configv1.OperandVersion) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

func versionOf(vs []configv1.OperandVersion, name string) string {
	for _, v := range vs {
		if v.Name == name {
			return v.Version
		}
	}
	return ""
}

// reasonPattern is a condition reason's (docs/upstream.md, "Kubernetes conditions
// in general").
var reasonPattern = regexp.MustCompile(`^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$`)

func validReason(r string) bool { return len(r) <= 1024 && reasonPattern.MatchString(r) }

// capitalize makes a message start with a capital letter (001 §Conditions).
func capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 || unicode.IsUpper(r) {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// sentence capitalises s and ends it with a full stop unless it already
// ends a sentence.
func sentence(s string) string {
	s = capitalize(strings.TrimSpace(s))
	if strings.HasSuffix(s, ".") || strings.HasSuffix(s, "!") || strings.HasSuffix(s, "?") {
		return s
	}
	return s + "."
}

func joinSentences(parts []string) string {
	out := make([]string, len(parts))
	for i, s := range parts {
		out[i] = sentence(s)
	}
	return strings.Join(out, " ")
}

// joinAnd lists names as a sentence does: "a", "a and b", "a, b and c".
func joinAnd(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
