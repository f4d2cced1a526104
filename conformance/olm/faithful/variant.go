package faithful

import (
	"fmt"
	"strings"
	"time"
)

// Variant is one faithful aggregator: its choices where 002 leaves them
// open.
type Variant struct {
	// Name names the variant for --subject, Description says its choices in one line.
	Name, Description string
	// Latency is how long after a change it looks again (a requeue): its
	// reaction, within the reaction bound.
	Latency time.Duration
	// Kind is what a listed CR's kind says, from the CRD.
	Kind func(c crd) string
	// BlockReason is the reason a CR failing expr is listed with.
	BlockReason func(expr string) string
	// ImportantFirst lists the Important reasons before the blocking one.
	ImportantFirst bool
	// AndInImportant evaluates an Important expression using && or ! for
	// the condition types it names (the seed says it "should only"
	// use ||); without it such an expression lists nothing.
	AndInImportant bool
	// Texts are Upgradeable's reason and message, by status and the CRs
	// that block ("Foo default/foo-example").
	Texts func(blocked bool, blockers []string) (reason, message string)
	// ObservedGeneration sets the conditions' observedGeneration.
	ObservedGeneration bool
	// Less orders status.probeResources; ReverseSpec lists spec.probeResources
	// in reverse order of CRD name (else in the order the CRDs are given).
	Less func(a, b entry) bool
	// ReverseSpec lists spec.probeResources in reverse order of CRD name (see Less).
	ReverseSpec bool
}

// Variants are the faithful aggregators, for the subjects of the
// aggregator role.
func Variants() []Variant {
	return []Variant{
		{Name: "faithful-resync", Description: "a faithful aggregator written from 002 alone: looks 20s after a change, lists CRs by their kind, the supported condition's name as the blocking reason, its own texts, no observedGeneration, reverse orders",
			Latency:     20 * time.Second,
			Kind:        func(c crd) string { return c.kind },
			BlockReason: func(string) string { return "Upgradeable" }, ImportantFirst: true, AndInImportant: true,
			Texts: func(blocked bool, blockers []string) (string, string) {
				if blocked {
					return "UpgradeBlocked", fmt.Sprintf("%d custom resource(s) block the upgrade: %s", len(blockers), strings.Join(blockers, ", "))
				}
				return "NothingBlocks", "no custom resource blocks the upgrade"
			},
			Less:        func(a, b entry) bool { return a.name+"/"+a.namespace > b.name+"/"+b.namespace },
			ReverseSpec: true},
		{Name: "faithful-example", Description: "a faithful aggregator written from 002 alone: looks 5s after a change, spells what the seed's example shows as it shows it, sets observedGeneration, orders CRs by name then namespace",
			Latency:     5 * time.Second,
			Kind:        func(c crd) string { return c.plural },
			BlockReason: func(expr string) string { return expr },
			Texts: func(blocked bool, _ []string) (string, string) {
				if blocked {
					return "NotUpgradeable", "The operator has communicated that the operator is not upgradeable"
				}
				return "ReadyForUpgrade", "No custom resource holds the upgrade back"
			},
			ObservedGeneration: true,
			Less:               func(a, b entry) bool { return a.name+"/"+a.namespace < b.name+"/"+b.namespace }},
	}
}
