package conformance

// The capability table (`opcert mechanisms`): for each role of each
// mechanism, the forms in which a team can bring it and whether its
// mechanism can be recorded and judged streaming, each computed from the
// mechanism's declarations: the forms from its roles (Role.Forms), watch
// and stream from the capabilities it implements (Recordable, Streaming);
// each "no" with the reason its role (Role.Cannot) or the mechanism
// (Limited) gives.

// Columns are the table's columns: the forms, then the mechanism's
// capabilities (the keys of Limited.Cannot).
var Columns = []string{string(FormLibrary), string(FormProcess), string(FormCluster), CannotWatch, CannotStream}

// Capability is one row of the table: a role of a mechanism.
type Capability struct {
	// Mechanism is the mechanism's name, as --mechanism takes it.
	Mechanism string `json:"mechanism"`
	// Seed is the number of the seed the mechanism implements ("001").
	Seed string `json:"seed"`
	// Role is the role's name within its mechanism.
	Role  string `json:"role"`
	Cells []Cell `json:"cells"` // in the order of Columns
}

// Cell says whether a role (or its mechanism) can do what its column
// names and, when it cannot, why.
type Cell struct {
	// Column is one of Columns.
	Column string `json:"column"`
	// Can is true when the role (or its mechanism) can do what Column names.
	Can bool `json:"can"`
	// Why says, when Can is false, what the role or mechanism lacks; empty otherwise.
	Why string `json:"why,omitempty"`
}

// Capabilities is the table of the mechanisms, a row per role in the
// mechanisms' and roles' order.
func Capabilities(ms []Mechanism) []Capability {
	var out []Capability
	for _, m := range ms {
		_, recordable := m.(Recordable)
		_, streaming := m.(Streaming)
		watch := Cell{Column: CannotWatch, Can: recordable}
		stream := Cell{Column: CannotStream, Can: streaming}
		for _, c := range []*Cell{&watch, &stream} {
			if !c.Can {
				c.Why = Lacks(m, c.Column)
			}
		}
		for _, r := range m.Roles() {
			row := Capability{Mechanism: m.Name(), Seed: m.Seed(), Role: r.Name}
			for _, f := range AllForms {
				c := Cell{Column: string(f), Can: r.Takes(f)}
				if !c.Can {
					c.Why = r.Cannot[f]
				}
				row.Cells = append(row.Cells, c)
			}
			row.Cells = append(row.Cells, watch, stream)
			out = append(out, row)
		}
	}
	return out
}

// Lacks is why m cannot do what capability names (CannotWatch,
// CannotStream), as it says (Limited); empty when it gives no reason.
func Lacks(m Mechanism, capability string) string {
	if l, ok := m.(Limited); ok {
		return l.Cannot()[capability]
	}
	return ""
}
