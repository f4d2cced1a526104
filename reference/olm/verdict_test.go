package olm

import (
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/opcert/opcert/reference/olm/expr"
)

// Judge, one CR at a time: 002 §Example Workflow's CR, each line of 002 §Test
// Plan under both readings (decision 002, conformance/olm/README.md), Kleene's
// Unknowns, and the flaws that change a verdict.
func TestJudge(t *testing.T) {
	for _, tc := range []struct {
		name    string
		res     Resource
		conds   []metav1.Condition
		reading Reading
		flaw    AggregatorFlaw
		value   expr.Value
		blocks  bool
		reasons []string
	}{
		{name: "002 §Example Workflow: the seed's CR gives the seed's reasons, in the seed's order",
			res: resource("!Migrating", "BadConnectivity || UnhealthyDatabase"), conds: seedCR,
			value: expr.False, blocks: true, reasons: []string{"!Migrating", "UnhealthyDatabase", "BadConnectivity"}},
		{name: "002 §Opting into OLM Supported Conditions: not migrating is upgradeable",
			res:   resource("!Migrating", "BadConnectivity || UnhealthyDatabase"),
			conds: conds("Migrating=False", "UnhealthyDatabase=True", "BadConnectivity=False"),
			value: expr.True, reasons: []string{"UnhealthyDatabase"}},
		{name: "002 §Test Plan: a condition expression that cannot be calculated does not block (missing type)",
			res: resource("!Migrating", ""), conds: conds("Other=True"), value: expr.Unknown},
		{name: "002 §Test Plan: cannot be calculated (status Unknown) does not block",
			res: resource("!Migrating", ""), conds: conds("Migrating=Unknown"), value: expr.Unknown},
		{name: "002 §Test Plan: cannot be calculated does not block under the blocks reading either",
			res: resource("Migrating", ""), conds: nil, reading: ReadingBlocks, value: expr.Unknown},
		{name: "002 §Test Plan, read through decision 002: an expression that holds does not block",
			res: resource("FinishedMigrating && ReadyToGo", ""), conds: conds("FinishedMigrating=True", "ReadyToGo=True"),
			value: expr.True},
		{name: "002 §Test Plan, read through decision 002: an expression that does not hold blocks",
			res: resource("FinishedMigrating && ReadyToGo", ""), conds: conds("FinishedMigrating=True", "ReadyToGo=False"),
			value: expr.False, blocks: true, reasons: []string{"FinishedMigrating && ReadyToGo"}},
		{name: "002 §Test Plan read literally (blocks): blocked if the boolean expression is true",
			res: resource("Migrating", ""), conds: conds("Migrating=True"), reading: ReadingBlocks,
			value: expr.True, blocks: true, reasons: []string{"Migrating"}},
		{name: "002 §Test Plan read literally (blocks): not blocked if the boolean expression is false",
			res: resource("Migrating", ""), conds: conds("Migrating=False"), reading: ReadingBlocks, value: expr.False},
		{name: "Kleene: False && Unknown is False, and blocks",
			res: resource("Ready && Synced", ""), conds: conds("Ready=False"), value: expr.False, blocks: true,
			reasons: []string{"Ready && Synced"}},
		{name: "Kleene: True || Unknown is True",
			res: resource("Ready || Synced", ""), conds: conds("Ready=True"), value: expr.True},
		{name: "the expression is the reason as written, not in canonical form",
			res: resource("( !Migrating )", ""), conds: conds("Migrating=True"), value: expr.False, blocks: true,
			reasons: []string{"( !Migrating )"}},
		{name: "no Upgradeable expression: Unknown, only Important reasons",
			res: resource("", "BadConnectivity"), conds: seedCR, value: expr.Unknown, reasons: []string{"BadConnectivity"}},
		{name: "an Important type that is False or Unknown is no reason",
			res: resource("", "BadConnectivity || UnhealthyDatabase"), conds: conds("BadConnectivity=False", "UnhealthyDatabase=Unknown"),
			value: expr.Unknown},
		{name: "a prefixed condition type",
			res: resource("!example.com/Migrating", "example.com/Broken"), conds: conds("example.com/Migrating=True", "example.com/Broken=True"),
			value: expr.False, blocks: true, reasons: []string{"!example.com/Migrating", "example.com/Broken"}},
		{name: "flaw unknown-as-false: Unknown blocks", flaw: UnknownAsFalse,
			res: resource("!Migrating", ""), conds: nil, value: expr.Unknown, blocks: true, reasons: []string{"!Migrating"}},
		{name: "flaw unknown-as-false: Unknown blocks under the blocks reading too", flaw: UnknownAsFalse, reading: ReadingBlocks,
			res: resource("Migrating", ""), conds: nil, value: expr.Unknown, blocks: true, reasons: []string{"Migrating"}},
		{name: "flaw all-true-important: the unrelated condition is listed", flaw: AllTrueImportant,
			res: resource("!Migrating", "BadConnectivity || UnhealthyDatabase"), conds: seedCR, value: expr.False, blocks: true,
			reasons: []string{"!Migrating", "Migrating", "UnhealthyDatabase", "BadConnectivity", "SomethingUnrelated"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reading := tc.reading
			if reading == "" {
				reading = ReadingHolds
			}
			v := Judge(tc.res, tc.conds, reading, tc.flaw)
			if v.Value != tc.value || v.Blocks != tc.blocks || !slices.Equal(v.Reasons, tc.reasons) {
				t.Errorf("got %s blocks=%t reasons %q, want %s blocks=%t reasons %q",
					v.Value, v.Blocks, v.Reasons, tc.value, tc.blocks, tc.reasons)
			}
		})
	}
}
