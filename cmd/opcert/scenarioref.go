package main

import (
	"fmt"
	"io"
	"path"
	"reflect"
	"strings"

	"github.com/opcert/opcert/scenarios"
)

// scenarioReference writes the scenario format as a Markdown page: the
// shared fields, then each kind's top-level fields, step actions and the
// types of their values. The structure is the loader's own
// (scenarios.Fields over the registered kinds' types), the texts the doc
// comments of the Go declarations behind it, so the page can neither list
// what the loader refuses nor miss what it reads. builtins names each
// kind's built-in scenarios.
func scenarioReference(w io.Writer, kinds []*scenarios.Kind, builtins map[string][]string, docs *goDocs) error {
	p := &formatPage{docs: docs, shared: map[reflect.Type]bool{}}
	scenarioT, stepT := reflect.TypeFor[scenarios.Scenario](), reflect.TypeFor[scenarios.Step]()
	// The shared types a scenario of any kind may hold, in the order they
	// are reached: those of the top level and a step, then the kinds'.
	var shared []reflect.Type
	for _, root := range append([]reflect.Type{scenarioT}, kindRoots(kinds)...) {
		p.reach(root, map[reflect.Type]bool{}, func(t reflect.Type) {
			if isShared(t) && !p.shared[t] {
				p.shared[t] = true
				shared = append(shared, t)
			}
		})
	}
	b := &p.b
	b.WriteString("# Scenario format\n\n")
	b.WriteString("Every field a scenario file takes and every step action, as the loader reads them: the shared part, then each mechanism's. " +
		"A value is text, a whole number, true or false, a duration as Go writes it (`45s`, `10m`, `1h30m`), a list, or the fields of a type below. " +
		"The loader refuses unknown and repeated fields and says where. " +
		"How steps are timed, how an `expect` holds for any faithful subject, and the limits: [scenarios](../concepts/scenarios.md).\n\n")
	b.WriteString("## Shared fields\n\n")
	for _, t := range shared {
		switch t {
		case scenarioT:
			p.section(t, "The top level of a scenario file.", "Besides these, the top level takes the fields of its mechanism (below).")
		case stepT:
			p.section(t, "One step: when it happens, and what.", "Besides these, a step takes one action of its mechanism (below), or none to only move the cursor.")
		default:
			p.section(t, "", "")
		}
	}
	for _, k := range kinds {
		p.kind(k, builtins[k.Mechanism])
	}
	if p.err != nil {
		return p.err
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// kindRoots are the types a kind brings to the format: its World and its
// actions' values.
func kindRoots(kinds []*scenarios.Kind) []reflect.Type {
	var out []reflect.Type
	for _, k := range kinds {
		if k.World != nil {
			out = append(out, k.World)
		}
		if k.Actions != nil {
			for _, a := range k.Actions.Declared() {
				out = append(out, a.Type)
			}
		}
	}
	return out
}

// formatPage is the page being written; the first error reading a doc
// comment is kept and returned at the end.
type formatPage struct {
	b      strings.Builder
	docs   *goDocs
	shared map[reflect.Type]bool
	err    error
}

// kind writes one mechanism's part of the format.
func (p *formatPage) kind(k *scenarios.Kind, builtins []string) {
	b := &p.b
	fmt.Fprintf(b, "## Mechanism `%s`\n\n", k.Mechanism)
	if gvk := k.Expects; gvk.Kind != "" {
		fmt.Fprintf(b, "- `expect` reads a %s (`%s`) when it names no kind.\n", gvk.Kind, gvk.GroupVersion())
	}
	if len(k.Conditions) > 0 {
		fmt.Fprintf(b, "- Condition types: %s.\n", codeList(k.Conditions))
	}
	if len(k.Roles) > 0 {
		fmt.Fprintf(b, "- Roles an `apiErrors` step may name: %s.\n", codeList(k.Roles))
	} else {
		b.WriteString("- It takes no `apiErrors` step.\n")
	}
	if len(builtins) > 0 {
		fmt.Fprintf(b, "- Built-in scenarios (`opcert scenarios list`): %s.\n", codeList(builtins))
	}
	b.WriteString("\n")
	var own []reflect.Type
	seen := map[reflect.Type]bool{}
	var roots []reflect.Type
	if k.World != nil {
		roots = append(roots, k.World)
		seen[k.World] = true // its fields are the top level's, not a type's
	}
	if k.World != nil && len(scenarios.Fields(k.World)) > 0 {
		b.WriteString("### Top-level fields\n\n")
		p.table(k.World)
		b.WriteString("\n")
	}
	var actions []scenarios.Action
	if k.Actions != nil {
		actions = k.Actions.Declared()
	}
	if len(actions) > 0 {
		b.WriteString("### Step actions\n\n| Action | Value | What it does |\n|---|---|---|\n")
		pkg := ""
		if k.World != nil {
			pkg = k.World.PkgPath()
		}
		for _, a := range actions {
			doc := p.constDoc(pkg, a.Name)
			if doc == "" && named(a.Type) {
				doc = p.typeDoc(a.Type)
			}
			fmt.Fprintf(b, "| `%s` | %s | %s |\n", a.Name, p.value(a.Type), markdownCell(doc))
			roots = append(roots, a.Type)
		}
		b.WriteString("\n")
	}
	for _, root := range roots {
		p.reach(root, map[reflect.Type]bool{}, func(t reflect.Type) {
			if !seen[t] && !p.shared[t] {
				seen[t] = true
				own = append(own, t)
			}
		})
	}
	if len(own) > 0 {
		b.WriteString("### Types\n\n")
		for _, t := range own {
			p.section(t, "", "")
		}
	}
}

// section writes a struct type's heading, its doc comment and its fields;
// title replaces the type's doc, and after follows the table.
func (p *formatPage) section(t reflect.Type, title, after string) {
	b := &p.b
	fmt.Fprintf(b, "<a id=\"%s\"></a>\n#### %s\n\n", anchor(t), t.Name())
	doc := title
	if doc == "" {
		doc = p.typeDoc(t)
	}
	if doc != "" {
		b.WriteString(doc + "\n\n")
	}
	p.table(t)
	if after != "" {
		b.WriteString("\n" + after + "\n")
	}
	b.WriteString("\n")
}

// table writes the fields of the struct type t.
func (p *formatPage) table(t reflect.Type) {
	b := &p.b
	b.WriteString("| Field | Value | Description |\n|---|---|---|\n")
	for _, f := range scenarios.Fields(t) {
		fmt.Fprintf(b, "| `%s` | %s | %s |\n", f.Name, p.value(f.Type), markdownCell(p.fieldDoc(f)))
	}
}

// value says what a field or an action takes, linking a struct type to
// its section.
func (p *formatPage) value(t reflect.Type) string {
	switch {
	case t == reflect.TypeFor[scenarios.Duration]():
		return "duration"
	case t.Kind() == reflect.Pointer:
		return p.value(t.Elem())
	case t.Kind() == reflect.Slice:
		return "list of " + p.value(t.Elem())
	case t.Kind() == reflect.Map:
		return "a Kubernetes object"
	case t.Kind() == reflect.Struct:
		return fmt.Sprintf("[%s](#%s)", t.Name(), anchor(t))
	case t.Kind() == reflect.String:
		return "text"
	case t.Kind() == reflect.Bool:
		return "true or false"
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Int64:
		return "whole number"
	case t.Kind() >= reflect.Uint && t.Kind() <= reflect.Uint64:
		return "whole number, 0 or more"
	case t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64:
		return "number"
	}
	return t.String()
}

// reach calls visit on t, if a struct type with fields of its own in the
// format, and on every such type its fields reach, depth first.
func (p *formatPage) reach(t reflect.Type, seen map[reflect.Type]bool, visit func(reflect.Type)) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || t == reflect.TypeFor[scenarios.Duration]() || seen[t] {
		return
	}
	seen[t] = true
	visit(t)
	for _, f := range scenarios.Fields(t) {
		p.reach(f.Type, seen, visit)
	}
}

func (p *formatPage) typeDoc(t reflect.Type) string {
	doc, err := p.docs.typeDoc(t)
	p.keep(err)
	return doc
}

func (p *formatPage) fieldDoc(f scenarios.Field) string {
	doc, err := p.docs.fieldDoc(f.Owner, f.GoName)
	p.keep(err)
	return doc
}

func (p *formatPage) constDoc(pkg, value string) string {
	doc, err := p.docs.constDoc(pkg, value)
	p.keep(err)
	return doc
}

func (p *formatPage) keep(err error) {
	if p.err == nil {
		p.err = err
	}
}

// isShared tells whether t is one of the format's shared types (package
// scenarios).
func isShared(t reflect.Type) bool {
	return t.PkgPath() == reflect.TypeFor[scenarios.Scenario]().PkgPath()
}

// named tells whether t, or what it points to, is a named struct type,
// whose doc comment can say what a value of it does.
func named(t reflect.Type) bool {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Kind() == reflect.Struct && t.Name() != ""
}

// anchor is a struct type's link target: its name, and its package's
// for a mechanism's type (two mechanisms may each have an Operator).
func anchor(t reflect.Type) string {
	name := strings.ToLower(t.Name())
	if isShared(t) {
		return name
	}
	return path.Base(t.PkgPath()) + "-" + name
}

// codeList is names as inline code, separated by commas.
func codeList(names []string) string {
	return "`" + strings.Join(names, "`, `") + "`"
}
