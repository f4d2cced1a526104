package rules

import (
	"fmt"
	"strings"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/reports"
)

// Rules returns the STATICPOD rules judged against cfg.
func Rules(cfg Config) []judge.Rule {
	order, over := "the seed's order", "a later revision is ready"
	if cfg.libraryGo() {
		order, over = "library-go's order (docs/upstream.md)", "the mirror pod drops the fallback annotations"
	}
	noRetry := strings.Join(cfg.NoRetry, " or ")
	if noRetry == "" {
		noRetry = "(none in this profile)"
	}
	return []judge.Rule{
		{ID: "STATICPOD-001", Section: "003 §Readiness", Role: RoleStartupMonitor,
			Statement: fmt.Sprintf("a revision whose operand is not ready is fallen back from %s after its manifest was written (writing it again unchanged starts nothing): not earlier, not later than the reaction bound (%s) after that, and not once ready while its startup-monitor ran", cfg.Timeout, cfg.Reaction),
			Check:     cfg.fromNode(cfg.fallbackInTime)},
		{ID: "STATICPOD-002", Section: "003 §Readiness", Role: RoleStartupMonitor,
			Statement: "a fallback's reason is the first failing readiness check in " + order + " on the operand's observed state (start attempts, /healthz, /readyz, mirror pod)",
			Check:     cfg.fromNode(cfg.rightReason)},
		{ID: "STATICPOD-003", Section: "003 §Proposal step 1", Role: RoleStartupMonitor,
			Statement: "the fallback manifest, and then the mirror pod, carry fallback-for-revision (the failed revision), fallback-reason (a known reason) and a fallback-message",
			Check:     cfg.fromNode(cfg.annotated)},
		{ID: "STATICPOD-004", Section: "003 §Proposal step 2", Role: RoleStartupMonitor,
			Statement: "last-known-good is linked only to a revision whose operand was ready (mirror pod Ready=True at that revision) since its manifest was written",
			Check:     cfg.fromNode(cfg.linkedWhenReady)},
		{ID: "STATICPOD-005", Section: "003 §Proposal step 1, §Design Details", Role: RoleStartupMonitor,
			Statement: "a fallback goes to last-known-good if linked, else to the previous revision, else nowhere (bootstrap); going back two or more revisions is a warning",
			Check:     cfg.fromNode(cfg.rightTarget)},
		{ID: "STATICPOD-006", Section: "003 §Retries", Role: RoleOperator,
			Statement: "a revision fallen back from with reason " + noRetry + " is never asked of the installer again by the operator",
			Check:     cfg.fromNode(cfg.noRetry)},
		{ID: "STATICPOD-007", Section: "003 §Retries", Role: RoleOperator,
			Statement: fmt.Sprintf("a failed revision still the target is asked of the installer again, never sooner than %s after its fallback, each wait no shorter than the one before (a growing back-off), and never more than %s (plus the reaction bound, %s) after the mirror pod showed the fallback; a restarted operator keeps its back-off", cfg.FirstRetry, cfg.MaxBackoff, cfg.Reaction),
			Check:     cfg.fromNode(cfg.backoffKept)},
		{ID: "STATICPOD-008", Section: "003 §Retries, §User Stories 2 and 3", Role: RoleOperator,
			Statement: fmt.Sprintf("the operator reports %s=True with the fallback message within the reaction bound (%s) of the mirror pod showing a fallback, and keeps it True until %s", cfg.condition(), cfg.Reaction, over),
			Check:     cfg.degraded},
		{ID: "STATICPOD-009", Section: "003 §Pruner", Role: RolePruner,
			Statement: "nothing removes the last-known-good link or the revision it points to",
			Check:     cfg.fromNode(cfg.lastKnownGoodKept)},
		{ID: "STATICPOD-010", Section: "003 §Coordination of Installer and Startup-Monitor", Role: RoleInstaller,
			Statement: "while one actor holds the installer lock, no other takes it or writes, renames or removes anything in " + manifestsDir,
			Check:     cfg.fromNode(cfg.lockHonoured)},
		{ID: "STATICPOD-011", Section: "003 §User Stories 3", Role: RoleOperator, Style: true,
			Statement: fmt.Sprintf("while %s=True for a fallback from a revision whose operand wrote a termination message (its last termination.log line before the fallback), the condition's message carries that termination message, from the reaction bound after the operator could see it on the mirror pod (after a restart too); the seed gives the condition message as an example (\"e.g.\")", cfg.condition()),
			Check:     cfg.fromNode(cfg.terminationShown)},
		{ID: "STATICPOD-012", Section: "003 §Proposal step 2", Role: RoleStartupMonitor,
			Statement: fmt.Sprintf("once the operand of a revision is ready (mirror pod Ready=True at that revision since its manifest was written), its startup-monitor links last-known-good to that revision and then removes its own manifest, within the reaction bound (%s) of the first instant it can see it ready (running, the installer lock free); a monitor that was down owes it once back, none is owed once a later manifest is written", cfg.Reaction),
			Check:     cfg.fromNode(cfg.doneWhenReady)},
		{ID: "STATICPOD-013", Section: "003 §Readiness", Role: RoleStartupMonitor, Style: true,
			Statement: "a fallback for a red /readyz names the unfinished post-start hooks in its message (the seed: \"message should contain the unfinished post-start-hooks\")",
			Check:     cfg.fromNode(cfg.hooksNamed)},
		{ID: "STATICPOD-014", Section: "003 §User Stories 4, §Retries", Role: RoleInstaller,
			Statement: fmt.Sprintf("every ask of the operator (a rollout or a retry) is carried out: the installer writes the asked revision's operand manifest within the reaction bound (%s) of the ask, or of the release of a lock another actor held, unless a later ask replaced it", cfg.Reaction),
			Check:     cfg.fromNode(cfg.asksCarriedOut)},
		{ID: "STATICPOD-015", Section: "003 §Retries", Role: RoleOperator, Style: true,
			Statement: fmt.Sprintf("once a fallback is over (%s) and no other is outstanding, the operator sets %s=False within the reaction bound (%s)", over, cfg.condition(), cfg.Reaction),
			Check:     cfg.degradedCleared},
	}
}

// fromNode is a rule's check that reads what happens on the nodes (their
// files: manifests, last-known-good, the installer lock, termination.log;
// the operand's probes and start attempts; the actors' processes), which a
// recording of the API server does not hold: on a recording it is not
// judged, saying so, rather than judging nothing as a pass or a failure.
// STATICPOD-008 and STATICPOD-015 read the operator's condition and the
// mirror pods only, and judge a recording too (shown).
func (c Config) fromNode(check func(*judge.Judging) judge.Verdict) func(*judge.Judging) judge.Verdict {
	return func(j *judge.Judging) judge.Verdict {
		if c.factsOf(j).recorded {
			return judge.Verdict{Status: reports.Skip, Message: "not judged: the rule reads the nodes' files, probes or processes, which a recording of the API server does not hold (it holds the operator's ClusterOperator and the mirror pods)"}
		}
		return check(j)
	}
}
