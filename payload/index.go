package payload

import "strings"

// deployments indexes a payload's Deployment manifests, each list in sweep
// order, so that finding a ClusterOperator's operator (OperatorOf) and its
// variants (Variants) is a look-up: a scan of every manifest per
// ClusterOperator made linting a payload of n files take n² time (20,000
// files: 80 s).
type deployments struct {
	byRef       map[Ref][]Manifest
	byComponent map[string][]Manifest // by ComponentOf
	byName      map[string][]Manifest
	// byComponentName: by ComponentOf and name.
	byComponentName map[[2]string][]Manifest
}

func indexDeployments(ms []Manifest) *deployments {
	d := &deployments{byRef: map[Ref][]Manifest{}, byComponent: map[string][]Manifest{}, byName: map[string][]Manifest{}, byComponentName: map[[2]string][]Manifest{}}
	for _, m := range ms {
		if !m.IsDeployment() {
			continue
		}
		d.byRef[Ref{m.Namespace, m.Name}] = append(d.byRef[Ref{m.Namespace, m.Name}], m)
		d.byName[m.Name] = append(d.byName[m.Name], m)
		if c, ok := ComponentOf(m); ok {
			d.byComponent[c] = append(d.byComponent[c], m)
			d.byComponentName[[2]string{c, m.Name}] = append(d.byComponentName[[2]string{c, m.Name}], m)
		}
	}
	return d
}

// ComponentOf is the component m belongs to, as SameComponent compares
// them: the one its file names; one shared by every file whose name does
// not start with "0000_" (a key no file name gives); none (false) for a
// file named 0000_... without a component, which shares it with no other.
func ComponentOf(m Manifest) (string, bool) {
	switch {
	case m.Component != "":
		return m.Component, true
	case !strings.HasPrefix(m.File, "0000_"):
		return "0000_50_<operator>_", true
	}
	return "", false
}

// Variants are the payload's Deployment manifests named ref, in sweep
// order: a payload may hold variants of one Deployment, one per cluster
// profile.
func (p *Payload) Variants(ref Ref) []Manifest { return p.deployments.byRef[ref] }

// firstOf is the earliest in sweep order of the first manifests of lists.
func firstOf(lists ...[]Manifest) (Manifest, bool) {
	var first Manifest
	found := false
	for _, l := range lists {
		if len(l) > 0 && (!found || l[0].Seq < first.Seq) {
			first, found = l[0], true
		}
	}
	return first, found
}
