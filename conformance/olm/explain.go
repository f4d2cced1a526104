package olm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/opcert/opcert/bounded"
	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/reference/olm/expr"
)

// opcert olm explain: for given CRs, each condition annotation's value
// and why, and whether the upgrade gate is open: the question operator
// authors ask ("why is my operator not upgraded?").

func init() {
	conformance.RegisterTool(conformance.Tool{Mechanism: Name, Seed: Seed, Name: "explain",
		Usage: "[FILE...]",
		Short: "Evaluate the condition annotations over CRs and say why an upgrade is blocked or not",
		Long: `Evaluate seed 002's condition annotations (olm.operatorframework.io/condition.
Upgradeable and .Important) over custom resources, and say, for each CR,
each expression's value with the status of every condition it names, whether
the CR blocks an upgrade and the reasons a Probe would list for it; then
whether the gate is open.

FILEs are YAML or JSON, several documents each: CustomResourceDefinitions
(their annotations apply to their CRs), CRs (any object; its
.status.conditions are read), or lists of them (kubectl get -o yaml). With
--annotation the expressions apply to every CR given, whatever its CRD says.
With no FILE, or "-", standard input is read. Each FILE must be a regular
file, and each input at most 64 MiB (more is refused, exit 2).

Semantics (decision 002): three-valued; a condition missing or neither True
nor False is Unknown; with --reading holds (the default) a CR blocks when
its Upgradeable expression is False, with --reading blocks when it is True;
Unknown never blocks.

Examples:
  kubectl get crd foos.example.com -o yaml > crd.yaml
  kubectl get foos -A -o yaml | opcert olm explain crd.yaml -
  opcert olm explain --annotation 'Upgradeable=!Migrating' foo.yaml`,
		Flags: explainFlags})
}

func explainFlags(fs *pflag.FlagSet) func(context.Context, []string, io.Writer) error {
	annotations := fs.StringArray("annotation", nil, "NAME=EXPRESSION: a condition annotation (Upgradeable or Important) applying to every CR; repeatable")
	reading := fs.String("reading", ReadingHolds, "what an Upgradeable expression states: holds (upgradeable while True) or blocks (blocked while True)")
	format := fs.StringP("output", "o", "", "print as json or yaml instead of text")
	return func(ctx context.Context, args []string, out io.Writer) error {
		if *reading != ReadingHolds && *reading != ReadingBlocks {
			return fmt.Errorf("--reading %q: use %s or %s", *reading, ReadingHolds, ReadingBlocks)
		}
		if *format != "" && *format != "json" && *format != "yaml" {
			return fmt.Errorf("-o %q: use json or yaml, or leave it out for text", *format)
		}
		given, err := parseAnnotationFlags(*annotations)
		if err != nil {
			return err
		}
		in, err := readExplainInput(ctx, args)
		if err != nil {
			return err
		}
		ex := explain(in, given, *reading)
		switch *format {
		case "json", "yaml":
			data, err := yaml.Marshal(ex)
			if err == nil && *format == "json" {
				data, err = yaml.YAMLToJSON(data)
				data = append(data, '\n')
			}
			if err != nil {
				return err
			}
			_, err = out.Write(data)
			return err
		}
		return ex.print(out)
	}
}

// parseAnnotationFlags reads --annotation NAME=EXPRESSION values into
// annotation keys. A name that is not a condition annotation seed 002
// defines (Upgradeable, Important), or an expression that does not parse,
// is the flag's fault and refused: evaluated, it would block nothing and
// the gate would look open for a typo.
func parseAnnotationFlags(flags []string) (map[string]string, error) {
	if len(flags) == 0 {
		return nil, nil
	}
	out := map[string]string{}
	for _, f := range flags {
		name, value, ok := strings.Cut(f, "=")
		if !ok {
			return nil, fmt.Errorf("--annotation %q: give NAME=EXPRESSION, like Upgradeable=!Migrating", f)
		}
		key := expr.AnnotationPrefix + strings.TrimPrefix(name, expr.AnnotationPrefix)
		if _, _, err := expr.ParseAnnotation(key, value); err != nil {
			return nil, fmt.Errorf("--annotation: %w", err)
		}
		out[key] = value
	}
	return out, nil
}

// explainInput is what the files hold: CRDs' annotations by group and kind,
// and CRs.
type explainInput struct {
	crds map[string]map[string]string // "Kind.group" -> annotations
	crs  []*unstructured.Unstructured
}

// maxExplainInput is the most explain reads of one input: the CRs of a
// large cluster (kubectl get KIND -A -o yaml) are a few MiB.
const maxExplainInput = 64 << 20

func readExplainInput(ctx context.Context, args []string) (*explainInput, error) {
	if len(args) == 0 {
		args = []string{"-"}
	}
	in := &explainInput{crds: map[string]map[string]string{}}
	for _, path := range args {
		if err := in.read(ctx, path); err != nil {
			return nil, err
		}
	}
	if len(in.crs) == 0 {
		return nil, errors.New("no custom resource found in the input: give the CRs to evaluate (kubectl get KIND -A -o yaml)")
	}
	return in, nil
}

// read adds the documents of one input: a file, or standard input for
// "-" (abandoned, with ctx's cause, when ctx is done: Ctrl-C on a
// terminal or a pipe nobody writes to).
func (in *explainInput) read(ctx context.Context, path string) error {
	var data []byte
	var err error
	if path == "-" {
		data, err = bounded.ReadAll(ctx, os.Stdin, maxExplainInput, "standard input")
	} else {
		data, err = bounded.ReadFile(ctx, path, maxExplainInput)
	}
	if err != nil {
		return err
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for doc := 1; ; doc++ {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		u := &unstructured.Unstructured{}
		err := dec.Decode(&u.Object)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: document %d: %w", path, doc, err)
		}
		if len(u.Object) == 0 {
			continue
		}
		in.add(u)
	}
}

func (in *explainInput) add(u *unstructured.Unstructured) {
	switch {
	case u.IsList():
		_ = u.EachListItem(func(o runtime.Object) error {
			in.add(o.(*unstructured.Unstructured))
			return nil
		})
	case u.GetKind() == "CustomResourceDefinition":
		kind, _, _ := unstructured.NestedString(u.Object, "spec", "names", "kind")
		group, _, _ := unstructured.NestedString(u.Object, "spec", "group")
		in.crds[kind+"."+group] = u.GetAnnotations()
	default:
		in.crs = append(in.crs, u)
	}
}

// Explanation is what opcert olm explain prints (-o json|yaml: stable
// lowerCamelCase names).
type Explanation struct {
	// Reading is how Upgradeable expressions were read: holds or blocks (--reading).
	Reading string `json:"reading"`
	// Blocked is true when at least one CR blocks the upgrade: the gate is closed.
	Blocked bool `json:"blocked"`
	// Uncalculated are the expressions that could not be calculated (one
	// that does not parse or names no condition annotation of the seed, or
	// an Upgradeable one that is Unknown over a CR), each once: they block
	// nothing (002 §Test Plan), so a gate not blocked with any of them is
	// said to be not calculated, never open.
	Uncalculated []string `json:"uncalculated,omitempty"`
	// CRs are the verdicts on the CRs read, one each.
	CRs []CRVerdict `json:"crs"`
}

// CRVerdict is one CR's expressions and what they make of it.
type CRVerdict struct {
	// Kind is the CR's kind, as its CRD names it.
	Kind string `json:"kind"`
	// Namespace is the CR's; empty for a cluster-scoped CR.
	Namespace string `json:"namespace,omitempty"`
	// Name is the CR's name.
	Name string `json:"name"`
	// Expressions are the CR's condition annotations' expressions and their values.
	Expressions []ExprValue `json:"expressions,omitempty"`
	// Blocks is true when the CR's Upgradeable expression blocks the upgrade.
	Blocks bool `json:"blocks"`
	// Reasons are what the CR is listed with: the blocking expression first, then the True conditions its Important expression names.
	Reasons []string `json:"reasons,omitempty"`
	// Note says why the CR has no expressions (it does not opt in); empty otherwise.
	Note string `json:"note,omitempty"`
}

// ExprValue is one annotation's expression over a CR.
type ExprValue struct {
	Annotation string `json:"annotation"` // Upgradeable or Important
	// Expression is the annotation's text as the CR carries it.
	Expression string `json:"expression"`
	Value      string `json:"value,omitempty"` // True, False, Unknown
	// Error says why the expression could not be calculated; empty when it was.
	Error      string            `json:"error,omitempty"`
	Conditions map[string]string `json:"conditions,omitempty"` // each named type: its status, "missing" if absent
}

// explain evaluates the expressions over each CR as decision 002
// (conformance/olm/README.md) reads them.
func explain(in *explainInput, given map[string]string, reading string) Explanation {
	ex := Explanation{Reading: reading}
	for _, cr := range in.crs {
		gvk := cr.GroupVersionKind()
		annotations := given
		if annotations == nil {
			annotations = in.crds[gvk.Kind+"."+gvk.Group]
		}
		v := explainCR(cr, annotations, reading)
		ex.Blocked = ex.Blocked || v.Blocks
		ex.CRs = append(ex.CRs, v)
		for _, e := range v.Expressions {
			if u := e.uncalculated(); u != "" && !slices.Contains(ex.Uncalculated, u) {
				ex.Uncalculated = append(ex.Uncalculated, u)
			}
		}
	}
	return ex
}

// uncalculatedNote follows the error of an expression that cannot be
// calculated.
const uncalculatedNote = " (cannot be calculated: blocks nothing)"

// uncalculated says why e could not be calculated over its CR, or "".
// An Important expression's Unknown blocks nothing either way: only its
// True conditions are reasons.
func (e ExprValue) uncalculated() string {
	switch {
	case e.Error != "":
		return strings.TrimSuffix(e.Error, uncalculatedNote) // names the annotation and the expression
	case e.Annotation == expr.NameUpgradeable && e.Value == expr.Unknown.String():
		return fmt.Sprintf("%s %q is Unknown", e.Annotation, e.Expression)
	}
	return ""
}

func explainCR(cr *unstructured.Unstructured, annotations map[string]string, reading string) CRVerdict {
	v := CRVerdict{Kind: cr.GetKind(), Namespace: cr.GetNamespace(), Name: cr.GetName()}
	conds := crConditions(cr)
	status := func(t string) expr.Value {
		i := slices.IndexFunc(conds, func(c [2]string) bool { return c[0] == t })
		if i < 0 {
			return expr.Unknown
		}
		return expr.ValueOf(conds[i][1])
	}
	var important expr.Expr
	keys := make([]string, 0, len(annotations))
	for k := range annotations {
		if strings.HasPrefix(k, expr.AnnotationPrefix) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	if len(keys) == 0 {
		v.Note = "no condition annotation: the CR does not opt in (002 §Test Plan: OLM keeps its existing behaviour)"
	}
	for _, k := range keys {
		name, e, err := expr.ParseAnnotation(k, annotations[k])
		ev := ExprValue{Annotation: strings.TrimPrefix(k, expr.AnnotationPrefix), Expression: annotations[k]}
		if err != nil {
			ev.Error = err.Error() + uncalculatedNote
			v.Expressions = append(v.Expressions, ev)
			continue
		}
		ev.Conditions = map[string]string{}
		for _, t := range expr.Vars(e) {
			ev.Conditions[t] = "missing"
			if i := slices.IndexFunc(conds, func(c [2]string) bool { return c[0] == t }); i >= 0 {
				ev.Conditions[t] = conds[i][1]
			}
		}
		val := expr.Eval(e, status)
		ev.Value = val.String()
		v.Expressions = append(v.Expressions, ev)
		switch name {
		case expr.NameUpgradeable:
			if (reading == ReadingHolds && val == expr.False) || (reading == ReadingBlocks && val == expr.True) {
				v.Blocks = true
				v.Reasons = append([]string{annotations[k]}, v.Reasons...)
			}
		case expr.NameImportant:
			important = e
		}
	}
	if important != nil {
		named := expr.Vars(important)
		for _, c := range conds {
			if c[1] == "True" && slices.Contains(named, c[0]) {
				v.Reasons = append(v.Reasons, c[0])
			}
		}
	}
	return v
}

// crConditions are a CR's conditions as (type, status), in order.
func crConditions(cr *unstructured.Unstructured) [][2]string {
	list, _, _ := unstructured.NestedSlice(cr.Object, "status", "conditions")
	var out [][2]string
	for _, c := range list {
		m, ok := c.(map[string]any)
		if !ok {
			continue
		}
		t, _ := m["type"].(string)
		s, _ := m["status"].(string)
		out = append(out, [2]string{t, s})
	}
	return out
}

func (ex Explanation) print(w io.Writer) error {
	var b strings.Builder
	for _, cr := range ex.CRs {
		ref := cr.Name
		if cr.Namespace != "" {
			ref = cr.Namespace + "/" + cr.Name
		}
		fmt.Fprintf(&b, "%s %s:", cr.Kind, ref)
		switch {
		case cr.Note != "":
			fmt.Fprintf(&b, " %s\n", cr.Note)
			continue
		case cr.Blocks:
			b.WriteString(" BLOCKS the upgrade\n")
		default:
			b.WriteString(" does not block\n")
		}
		for _, e := range cr.Expressions {
			if e.Error != "" {
				fmt.Fprintf(&b, "  %s %q: %s\n", e.Annotation, e.Expression, e.Error)
				continue
			}
			var why []string
			for _, t := range sortedKeys(e.Conditions) {
				why = append(why, t+"="+e.Conditions[t])
			}
			fmt.Fprintf(&b, "  %s %q = %s (%s)\n", e.Annotation, e.Expression, e.Value, strings.Join(why, ", "))
		}
		if len(cr.Reasons) > 0 {
			fmt.Fprintf(&b, "  reasons: %s\n", strings.Join(cr.Reasons, ", "))
		}
	}
	switch {
	case ex.Blocked:
		fmt.Fprintf(&b, "gate: CLOSED (reading %s): at least one CR blocks the upgrade (002 §Example Workflow)\n", ex.Reading)
	case len(ex.Uncalculated) > 0:
		fmt.Fprintf(&b, "gate: NOT CALCULATED (reading %s): no CR blocks the upgrade, but %d expressions could not be calculated and so block nothing (002 §Test Plan): %s\n",
			ex.Reading, len(ex.Uncalculated), strings.Join(ex.Uncalculated, "; "))
	default:
		fmt.Fprintf(&b, "gate: open (reading %s): no CR blocks the upgrade\n", ex.Reading)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
