package olm

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/opcert/opcert/reference/olm/expr"
)

// conds builds a CR's conditions from "Type=Status" pairs, in order.
func conds(pairs ...string) []metav1.Condition {
	var out []metav1.Condition
	for _, p := range pairs {
		for i := 0; i < len(p); i++ {
			if p[i] == '=' {
				out = append(out, metav1.Condition{Type: p[:i], Status: metav1.ConditionStatus(p[i+1:])})
				break
			}
		}
	}
	return out
}

// seedCR is the Foo CR of 002 §Example Workflow: every condition True.
var seedCR = conds("Migrating=True", "UnhealthyDatabase=True", "BadConnectivity=True", "SomethingUnrelated=True")

// resource compiles one probe resource of foos.example.com; it panics on
// an expression that does not parse (tests give valid ones).
func resource(upgradeable, important string) Resource {
	r := Resource{Name: "foos.example.com", UpgradeableText: upgradeable}
	if upgradeable != "" {
		e, err := expr.Parse(upgradeable)
		if err != nil {
			panic(err)
		}
		r.Upgradeable = e
	}
	if important != "" {
		e, err := expr.Parse(important)
		if err != nil {
			panic(err)
		}
		r.Important = expr.Vars(e)
	}
	return r
}

// epoch is where virtual time starts (sim/timeline.Epoch: 2026-01-01T00:00:00Z).
var epoch = time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)

// at is the virtual instant d after the start.
func at(d time.Duration) time.Time { return epoch.Add(d) }
