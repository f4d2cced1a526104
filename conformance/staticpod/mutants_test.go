package staticpod_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/opcert/opcert/reports"
)

// mutantCases are the broken subjects of mutants.go, each with a built-in
// scenario where it fails the rule its description names, as "a broken
// subject fails its rule" does for the first ones.
var mutantCases = []struct{ role, subject, scenario, rule string }{
	{"startup-monitor", "early-by-1s", "staticpod-hook-never-finishes", "STATICPOD-001"},
	{"startup-monitor", "late-past-bound", "staticpod-hook-never-finishes", "STATICPOD-001"},
	{"startup-monitor", "timer-before-readiness", "staticpod-ready-at-the-deadline", "STATICPOD-001"},
	{"startup-monitor", "timer-from-start", "staticpod-downgrade-leftover-monitor", "STATICPOD-001"},
	{"startup-monitor", "crashloop-at-one", "staticpod-hook-never-finishes", "STATICPOD-002"},
	{"startup-monitor", "no-hooks-in-message", "staticpod-hook-never-finishes", "STATICPOD-013"},
	{"startup-monitor", "no-fallback-message", "staticpod-hook-never-finishes", "STATICPOD-003"},
	{"startup-monitor", "for-target-revision", "staticpod-hook-never-finishes", "STATICPOD-003"},
	{"startup-monitor", "healthz-is-ready", "staticpod-healthy-rollout", "STATICPOD-004"},
	{"startup-monitor", "links-failed-revision", "staticpod-hook-never-finishes", "STATICPOD-004"},
	{"startup-monitor", "ignores-last-known-good", "staticpod-fallback-two-back", "STATICPOD-005"},
	{"startup-monitor", "falls-back-in-bootstrap", "staticpod-bootstrap", "STATICPOD-005"},
	{"startup-monitor", "ignores-lock", "staticpod-lock-held-by-installer", "STATICPOD-010"},
	{"startup-monitor", "lock-check-then-write", "staticpod-lock-held-by-installer", "STATICPOD-010"},
	{"startup-monitor", "never-links", "staticpod-healthy-rollout", "STATICPOD-012"},
	{"startup-monitor", "keeps-manifest", "staticpod-monitor-owes-step-two", "STATICPOD-012"},
	{"startup-monitor", "removes-before-linking", "staticpod-healthy-rollout", "STATICPOD-012"},
	{"startup-monitor", "links-late-past-bound", "staticpod-monitor-owes-step-two", "STATICPOD-012"},
	{"installer", "locks-late", "staticpod-lock-race", "STATICPOD-010"},
	{"installer", "skips-reinstall", "staticpod-etcd-unhealthy", "STATICPOD-014"},
	{"installer", "retry-without-operand", "staticpod-hook-never-finishes", "STATICPOD-014"},
	{"pruner", "keeps-one-more", "staticpod-ten-failing-revisions", "STATICPOD-009"},
	{"pruner", "stale-link", "staticpod-ready-at-the-deadline", "STATICPOD-009"},
	{"operator", "retries-never-started-up", "staticpod-bad-manifest", "STATICPOD-006"},
	{"operator", "retries-crash-looping", "staticpod-bad-config-observer", "STATICPOD-006"},
	{"operator", "retry-early-by-1s", "staticpod-hook-never-finishes", "STATICPOD-007"},
	{"operator", "backoff-cap-past-6h", "staticpod-backoff-ladder-24h", "STATICPOD-007"},
	{"operator", "backoff-shrinks", "staticpod-backoff-ladder-24h", "STATICPOD-007"},
	{"operator", "gives-up", "staticpod-backoff-ladder-24h", "STATICPOD-007"},
	{"operator", "clears-degraded-on-retry", "staticpod-hook-never-finishes", "STATICPOD-008"},
	{"operator", "degraded-late-past-bound", "staticpod-hook-never-finishes", "STATICPOD-008"},
	{"operator", "degraded-forever", "staticpod-etcd-unhealthy", "STATICPOD-015"},
	{"operator", "clears-late-past-bound", "staticpod-etcd-unhealthy", "STATICPOD-015"},
	{"operator", "truncates-termination-message", "staticpod-bad-configmap-crashloop", "STATICPOD-011"},
}

var _ = DescribeTable("a mutant fails its rule",
	func(role, subject, scenario, rule string) {
		run, _ := play(scenario, map[string]string{role: subject})
		c := verdict(run, rule)
		Expect(c.Status).To(Equal(failing(rule)), "%s=%s should fail %s on %s: %s", role, subject, rule, scenario, c.Message)
		Expect(c.Message).To(ContainSubstring("master-0"))
		Expect(c.Evidence).NotTo(BeEmpty())
	},
	func() []TableEntry {
		var out []TableEntry
		for _, c := range mutantCases {
			out = append(out, Entry(nil, c.role, c.subject, c.scenario, c.rule))
		}
		return out
	}(),
)

// styleRules are the Style rules: what the seed recommends or gives as an
// example. Their failures are warnings unless the run is strict.
var styleRules = map[string]bool{"STATICPOD-011": true, "STATICPOD-013": true, "STATICPOD-015": true}

// failing is the status a rule's failure has in a report that is not
// strict.
func failing(rule string) reports.Status {
	if styleRules[rule] {
		return reports.Warn
	}
	return reports.Fail
}

// mutantsTested are the "role/subject" of mutantCases, for the check that
// every broken subject has a failing rule in a table.
func mutantsTested() map[string]bool {
	out := map[string]bool{}
	for _, c := range mutantCases {
		out[c.role+"/"+c.subject] = true
	}
	return out
}
