package olm

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/opcert/opcert/probe"
)

const (
	keyUpgradeable = "olm.operatorframework.io/condition.Upgradeable"
	keyImportant   = "olm.operatorframework.io/condition.Important"
)

// foosCRD is 002 §Example Workflow's CRD with the given annotations.
func foosCRD(annotations map[string]string) CRD {
	return CRD{Name: "foos.example.com", Group: "example.com", Version: "v1", Kind: "Foo", Plural: "foos", Annotations: annotations}
}

func barsCRD(annotations map[string]string) CRD {
	return CRD{Name: "bars.example.com", Group: "example.com", Version: "v1", Kind: "Bar", Plural: "bars", Annotations: annotations}
}

// 002 §Example Workflow: the Probe's spec from the owned CRDs' annotations.
func TestDesiredSpec(t *testing.T) {
	seed := map[string]string{keyUpgradeable: "!Migrating", keyImportant: "BadConnectivity || UnhealthyDatabase"}
	for _, tc := range []struct {
		name string
		crds []CRD
		want []probe.Resource
	}{
		{name: "no CRD: an empty list, not nil", want: []probe.Resource{}},
		{name: "no annotation: an empty list", crds: []CRD{foosCRD(map[string]string{"other": "x"})}, want: []probe.Resource{}},
		{name: "the seed's annotations", crds: []CRD{foosCRD(seed)},
			want: []probe.Resource{{Resource: "foos.example.com", Upgradeable: "!Migrating", Important: "BadConnectivity || UnhealthyDatabase"}}},
		{name: "in order of CRD name, each with what it carries", crds: []CRD{foosCRD(seed), barsCRD(map[string]string{keyImportant: "Broken"})},
			want: []probe.Resource{{Resource: "bars.example.com", Important: "Broken"},
				{Resource: "foos.example.com", Upgradeable: "!Migrating", Important: "BadConnectivity || UnhealthyDatabase"}}},
		{name: "a CRD with only an unsupported condition gives no entry",
			crds: []CRD{foosCRD(map[string]string{"olm.operatorframework.io/condition.Degraded": "Broken"})}, want: []probe.Resource{}},
		{name: "an expression that does not parse is copied as written",
			crds: []CRD{foosCRD(map[string]string{keyUpgradeable: "!!"})},
			want: []probe.Resource{{Resource: "foos.example.com", Upgradeable: "!!"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := DesiredSpec(tc.crds)
			if got.Manager != probe.ManagerCRDAnnotations || got.ProbeResources == nil || !slices.Equal(got.ProbeResources, tc.want) {
				t.Errorf("got %+v, want manager crdAnnotations and %+v", got, tc.want)
			}
			if Annotated(tc.crds) != (len(tc.want) > 0) {
				t.Errorf("Annotated = %t with %d resources", Annotated(tc.crds), len(tc.want))
			}
		})
	}
}

func TestSameSpec(t *testing.T) {
	foo := []probe.Resource{{Resource: "foos.example.com", Upgradeable: "!Migrating"}}
	for _, tc := range []struct {
		name string
		a, b *probe.Spec
		same bool
	}{
		{"both nil", nil, nil, true},
		{"nil and empty spec", nil, &probe.Spec{}, false},
		{"equal", &probe.Spec{Manager: "crdAnnotations", ProbeResources: foo}, &probe.Spec{Manager: "crdAnnotations", ProbeResources: slices.Clone(foo)}, true},
		{"manager differs", &probe.Spec{Manager: "operator", ProbeResources: foo}, &probe.Spec{Manager: "crdAnnotations", ProbeResources: foo}, false},
		{"an expression edited", &probe.Spec{ProbeResources: foo}, &probe.Spec{ProbeResources: []probe.Resource{{Resource: "foos.example.com", Upgradeable: "Migrating"}}}, false},
		{"nil and empty lists", &probe.Spec{}, &probe.Spec{ProbeResources: []probe.Resource{}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := SameSpec(tc.a, tc.b); got != tc.same {
				t.Errorf("SameSpec = %t, want %t", got, tc.same)
			}
		})
	}
}

// decision 002, conformance/olm/README.md: an expression that does not parse
// is an error naming the resource, the annotation, the column and what was
// expected; Important allows only ||. The resource is kept, without that
// expression.
func TestCompile(t *testing.T) {
	for _, tc := range []struct {
		name        string
		spec        probe.Spec
		problems    []string
		upgradeable []bool // whether each resource kept its Upgradeable expression
		important   [][]string
	}{
		{name: "the seed's spec parses",
			spec:        probe.Spec{ProbeResources: []probe.Resource{{Resource: "foos.example.com", Upgradeable: "!Migrating", Important: "BadConnectivity || UnhealthyDatabase"}}},
			upgradeable: []bool{true}, important: [][]string{{"BadConnectivity", "UnhealthyDatabase"}}},
		{name: "an Upgradeable expression cut short",
			spec: probe.Spec{ProbeResources: []probe.Resource{{Resource: "foos.example.com", Upgradeable: "Ready &&", Important: "Broken"}}},
			problems: []string{`foos.example.com: annotation olm.operatorframework.io/condition.Upgradeable "Ready &&": ` +
				`column 9: expected a condition type or '(' or '!', found end of expression`},
			upgradeable: []bool{false}, important: [][]string{{"Broken"}}},
		{name: "Important with && names its position, and both resources' problems are listed in order",
			spec: probe.Spec{ProbeResources: []probe.Resource{
				{Resource: "bars.example.com", Important: "Broken && Down"},
				{Resource: "foos.example.com", Upgradeable: "migrating"}}},
			problems: []string{
				`bars.example.com: annotation olm.operatorframework.io/condition.Important "Broken && Down": column 8: Important expressions may only use ||, found '&&'`,
				`foos.example.com: annotation olm.operatorframework.io/condition.Upgradeable "migrating": column 1: expected a condition type or '(' or '!', found 'migrating' (not CamelCase: a condition type starts with an upper-case letter)`},
			upgradeable: []bool{false, false}, important: [][]string{nil, nil}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs, problems := Compile(tc.spec)
			if !slices.Equal(problems, tc.problems) {
				t.Errorf("problems:\n%q\nwant:\n%q", problems, tc.problems)
			}
			var up []bool
			var imp [][]string
			for _, r := range rs {
				up = append(up, r.Upgradeable != nil)
				imp = append(imp, r.Important)
			}
			if !slices.Equal(up, tc.upgradeable) || !reflect.DeepEqual(imp, tc.important) {
				t.Errorf("upgradeable kept %v, important %q; want %v, %q", up, imp, tc.upgradeable, tc.important)
			}
		})
	}
}

// decision 002, conformance/olm/README.md: an annotation under the condition
// prefix with a name OLM does not support is an error ProbeValid names (CRD,
// key), not silence.
func TestUnsupported(t *testing.T) {
	crds := []CRD{
		foosCRD(map[string]string{keyUpgradeable: "!Migrating", "olm.operatorframework.io/condition.Degraded": "Broken", "olm.operatorframework.io/condition.Available": "Up"}),
		barsCRD(map[string]string{keyImportant: "Throttled"}),
	}
	got := Unsupported(crds)
	if len(got) != 2 {
		t.Fatalf("got %q, want the two unsupported annotations of foos", got)
	}
	for i, key := range []string{"olm.operatorframework.io/condition.Available", "olm.operatorframework.io/condition.Degraded"} {
		if !strings.HasPrefix(got[i], "foos.example.com: ") || !strings.Contains(got[i], key) || !strings.Contains(got[i], "OLM supports the conditions Upgradeable and Important") {
			t.Errorf("problem %d = %q, want foos.example.com, %s and what OLM supports", i, got[i], key)
		}
	}
	if got := Unsupported(crds[1:]); got != nil {
		t.Errorf("supported annotations only: got %q", got)
	}
}
