package scenarios

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/opcert/opcert/bounded"
)

// Load reads and parses the scenario file at path. A path that is not a
// regular file (a FIFO, which would block the open, a device) is refused,
// and it reads at most one byte more than a scenario may hold.
func Load(path string) (*Scenario, error) {
	f, err := bounded.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse decodes and validates one scenario. source names the input in error
// messages, which all start with "<source>:<line>: " and name the field path.
//
// Decoding walks the YAML node tree against the Go types itself rather than
// using yaml.Decoder.KnownFields: the library's strict errors carry a line and
// a Go type name but not the field path, and Node.Decode cannot be strict.
func Parse(source string, data []byte) (*Scenario, error) {
	if len(data) > maxFileBytes {
		return nil, fmt.Errorf("%s:1: the file is larger than %s, the most a scenario may hold; declare many operators with count and random faults with chaos rather than listing them", source, mib(maxFileBytes))
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); errors.Is(err, io.EOF) || (err == nil && len(doc.Content) == 0) {
		return nil, fmt.Errorf("%s:1: the file is empty; a scenario needs at least name, mechanism and duration", source)
	} else if err != nil {
		return nil, syntaxError(source, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, fmt.Errorf("%s:%d: a second YAML document starts here; a scenario file holds one, so split the file at this '---'", source, extra.Line)
	} else if !errors.Is(err, io.EOF) {
		return nil, syntaxError(source, err)
	}

	d := decoder{source: source, lines: map[string]int{}, budget: maxNodes, open: map[*yaml.Node]bool{}, actions: map[string][]string{}}
	root := doc.Content[0]
	d.lines[""] = root.Line
	kind, err := d.kindOf(root)
	if err != nil {
		return nil, err
	}
	d.kind = kind
	s := &Scenario{Mechanism: kind.Mechanism}
	if err := d.root(root, s); err != nil {
		return nil, err
	}
	s.Source = source
	for i := range s.Steps {
		s.Steps[i].Line = d.lines[fmt.Sprintf("steps[%d]", i)]
	}
	if err := validate(s, kind, d.lines, d.actions); err != nil {
		return nil, err
	}
	return s, nil
}

// kindOf finds the mechanism the file names, which says how to read the rest.
func (d *decoder) kindOf(root *yaml.Node) (*Kind, error) {
	if root.Kind != yaml.MappingNode {
		_, names := fieldsOf(scenarioType)
		return nil, d.errorf(root, "", "want fields (%s), got %s", strings.Join(names, ", "), describe(root))
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if key, value := root.Content[i], root.Content[i+1]; key.Value == "mechanism" {
			k, ok := kindOf(value.Value)
			if !ok || value.Kind != yaml.ScalarNode {
				return nil, d.errorf(value, "mechanism", "%s is not known; known mechanisms: %s", describe(value), mechanismNames())
			}
			return k, nil
		}
	}
	return nil, d.errorf(root, "mechanism", "required; known mechanisms: %s", mechanismNames())
}

// root fills the scenario's shared fields and its kind's World from the
// top-level mapping: one namespace of fields, as the file reads.
func (d *decoder) root(n *yaml.Node, s *Scenario) error {
	shared, names := fieldsOf(scenarioType)
	var world reflect.Value
	var worldFields map[string][]int
	if t := d.kind.World; t != nil {
		world = reflect.New(t)
		s.World = world.Interface()
		var more []string
		worldFields, more = fieldsOf(t)
		names = append(names, more...)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, value := n.Content[i], n.Content[i+1]
		var target reflect.Value
		if index, ok := shared[key.Value]; ok {
			target = reflect.ValueOf(s).Elem().FieldByIndex(index)
		} else if index, ok := worldFields[key.Value]; ok && key.Kind == yaml.ScalarNode {
			target = world.Elem().FieldByIndex(index)
		} else {
			return d.errorf(key, "", "unknown field %s; a %s scenario takes: %s", describe(key), d.kind.Mechanism, strings.Join(names, ", "))
		}
		if err := d.field(key, "", value, target); err != nil {
			return err
		}
	}
	return nil
}

// field decodes one mapping entry, refusing a field given twice.
func (d *decoder) field(key *yaml.Node, path string, value *yaml.Node, v reflect.Value) error {
	p := join(path, key.Value)
	if line, dup := d.lines[p]; dup {
		return d.errorf(key, p, "given twice (first at line %d); keep one", line)
	}
	d.lines[p] = key.Line
	return d.decode(value, p, v)
}

// step fills a step: the shared fields, and the kind's actions into Action
// and Arg. Every action given is remembered, so that validation can say a
// step has two.
func (d *decoder) step(n *yaml.Node, path string, st *Step) error {
	shared, names := fieldsOf(stepType)
	if n.Kind != yaml.MappingNode {
		return d.errorf(n, path, "want fields (%s), got %s", strings.Join(append(names, d.kind.actionNames()...), ", "), describe(n))
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, value := n.Content[i], n.Content[i+1]
		if index, ok := shared[key.Value]; ok {
			if err := d.field(key, path, value, reflect.ValueOf(st).Elem().FieldByIndex(index)); err != nil {
				return err
			}
			continue
		}
		a, ok := d.kind.action(key.Value)
		if !ok || key.Kind != yaml.ScalarNode {
			return d.errorf(key, path, "unknown field %s; a step takes one of: %s", describe(key), strings.Join(append(names, d.kind.actionNames()...), ", "))
		}
		arg := reflect.New(a.Type)
		if err := d.field(key, path, value, arg.Elem()); err != nil {
			return err
		}
		if a.Type.Kind() == reflect.String && arg.Elem().String() == "" {
			continue // an empty name is no action; validation says so
		}
		d.actions[path] = append(d.actions[path], a.Name)
		st.Action, st.Arg = a.Name, arg.Interface()
		if a.Type.Kind() != reflect.Struct {
			st.Arg = arg.Elem().Interface()
		}
	}
	return nil
}

var (
	scenarioType = reflect.TypeFor[Scenario]()
	stepType     = reflect.TypeFor[Step]()
)

var yamlLine = regexp.MustCompile(`(?s)^yaml: line (\d+): (.*)$`)

// syntaxError puts the library's parse error in our format. The library leaves
// the line out when the problem is on the first line.
func syntaxError(source string, err error) error {
	line, msg := 1, strings.TrimPrefix(err.Error(), "yaml: ")
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
	}
	return fmt.Errorf("%s:%d: not valid YAML: %s; check indentation and quoting here and on the line before", source, line, msg)
}

func posError(source string, line int, path, msg string) error {
	if path != "" {
		msg = path + ": " + msg
	}
	return fmt.Errorf("%s:%d: %s", source, line, msg)
}

// maxNodes bounds decoding work: aliases can expand a small file into a huge
// tree ("billion laughs").
const maxNodes = 1 << 20

type decoder struct {
	source string
	kind   *Kind
	lines  map[string]int // field path -> line, so validation can point at fields
	// actions lists, per step path, the kind's actions the step gives.
	actions map[string][]string
	budget  int
	// open holds the create nodes being converted: an alias to one of them
	// would make the object contain itself. (The typed fields cannot nest
	// themselves, so only create needs this.)
	open map[*yaml.Node]bool
	// createPath is the create object being converted; objectBytes counts
	// its size as JSON and createBytes that of all of them so far.
	createPath               string
	objectBytes, createBytes int
}

func (d *decoder) errorf(n *yaml.Node, path, format string, args ...any) error {
	return posError(d.source, n.Line, path, fmt.Sprintf(format, args...))
}

// follow resolves aliases and charges n against the node budget.
func (d *decoder) follow(n *yaml.Node, path string) (*yaml.Node, error) {
	if d.budget--; d.budget < 0 {
		return nil, d.errorf(n, path, "the file expands to more than %d YAML nodes; use fewer aliases", maxNodes)
	}
	for n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n, nil
}

var durationType = reflect.TypeFor[Duration]()

// decode fills v from n, following the yaml tags of v's type.
func (d *decoder) decode(n *yaml.Node, path string, v reflect.Value) error {
	n, err := d.follow(n, path)
	if err != nil {
		return err
	}
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		return nil // an empty value leaves the field unset
	}
	switch t := v.Type(); {
	case t == durationType:
		if err := n.Decode(v.Addr().Interface()); err != nil {
			return d.errorf(n, path, "%v", err)
		}
		return nil
	case t == stepType:
		return d.step(n, path, v.Addr().Interface().(*Step))
	case t.Kind() == reflect.Struct:
		return d.mapping(n, path, v)
	case t.Kind() == reflect.Pointer:
		p := reflect.New(t.Elem())
		if err := d.decode(n, path, p.Elem()); err != nil {
			return err
		}
		v.Set(p)
		return nil
	case t.Kind() == reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return d.errorf(n, path, "want a list (items starting with '- '), got %s", describe(n))
		}
		s := reflect.MakeSlice(t, len(n.Content), len(n.Content))
		for i, item := range n.Content {
			p := fmt.Sprintf("%s[%d]", path, i)
			d.lines[p] = item.Line
			if err := d.decode(item, p, s.Index(i)); err != nil {
				return err
			}
		}
		v.Set(s)
		return nil
	case t.Kind() == reflect.Map: // create: a free-form Kubernetes object
		if n.Kind != yaml.MappingNode {
			return d.errorf(n, path, "want a Kubernetes object (apiVersion, kind, metadata, ...), got %s", describe(n))
		}
		d.createPath, d.objectBytes = path, 0
		obj, err := d.object(n, path, 1)
		if err != nil {
			return err
		}
		v.Set(reflect.ValueOf(obj))
		return nil
	}
	if n.Kind != yaml.ScalarNode || n.Decode(v.Addr().Interface()) != nil {
		return d.errorf(n, path, "want %s, got %s", scalarKinds[v.Kind()], describe(n))
	}
	return nil
}

// scalarKinds names, for messages, the kinds of scalar fields the types use.
var scalarKinds = map[reflect.Kind]string{
	reflect.String: "text", reflect.Int: "a whole number", reflect.Uint64: "a whole number, 0 or more",
	reflect.Float64: "a number", reflect.Bool: "true or false",
}

// mapping fills the struct v from the mapping n, refusing unknown and repeated fields.
func (d *decoder) mapping(n *yaml.Node, path string, v reflect.Value) error {
	fields, names := fieldsOf(v.Type())
	if n.Kind != yaml.MappingNode {
		return d.errorf(n, path, "want fields (%s), got %s", strings.Join(names, ", "), describe(n))
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, value := n.Content[i], n.Content[i+1]
		index, known := fields[key.Value]
		if key.Kind != yaml.ScalarNode || !known {
			return d.errorf(key, path, "unknown field %s; %s: %s", describe(key), d.takes(v.Type(), path), strings.Join(names, ", "))
		}
		if err := d.field(key, path, value, v.FieldByIndex(index)); err != nil {
			return err
		}
	}
	return nil
}

// object converts a create object to plain maps, lists and scalars at the
// given nesting depth. It counts the object's size as JSON, as it will be
// sent, while it converts: aliases can expand a small file into an object of
// any size, which must be refused before it is built.
func (d *decoder) object(ref *yaml.Node, path string, depth int) (any, error) {
	n, err := d.follow(ref, path)
	if err != nil {
		return nil, err
	}
	if d.open[n] {
		return nil, d.errorf(ref, path, "this alias refers to a node that contains it; an object cannot contain itself")
	}
	if depth > maxDepth && (n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode) {
		return nil, d.errorf(n, path, "nested deeper than %d mappings and lists; flatten the object", maxDepth)
	}
	d.open[n] = true
	defer delete(d.open, n)
	switch n.Kind {
	case yaml.MappingNode:
		obj := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			key := n.Content[i]
			if key.Kind != yaml.ScalarNode {
				return nil, d.errorf(key, path, "want a field name, got %s", describe(key))
			}
			p := join(path, key.Value)
			if _, dup := obj[key.Value]; dup {
				return nil, d.errorf(key, p, "given twice; keep one")
			}
			d.lines[p] = key.Line
			size, err := d.encoded(key, p, key.Value)
			if err != nil {
				return nil, err
			}
			if err := d.charge(size + 2); err != nil { // "key", ':' and the ',' or '{' before it
				return nil, err
			}
			if obj[key.Value], err = d.object(n.Content[i+1], p, depth+1); err != nil {
				return nil, err
			}
		}
		return obj, d.closing(len(obj))
	case yaml.SequenceNode:
		list := make([]any, len(n.Content))
		for i, item := range n.Content {
			if err := d.charge(1); err != nil { // the ',' or '[' before it
				return nil, err
			}
			if list[i], err = d.object(item, fmt.Sprintf("%s[%d]", path, i), depth+1); err != nil {
				return nil, err
			}
		}
		return list, d.closing(len(list))
	}
	var x any
	if err := n.Decode(&x); err != nil {
		return nil, d.errorf(n, path, "cannot read %s: %v", describe(n), err)
	}
	size, err := d.encoded(n, path, x)
	if err != nil {
		return nil, err
	}
	return x, d.charge(size)
}

// encoded is the size of a scalar as JSON, the API server's format.
func (d *decoder) encoded(n *yaml.Node, path string, x any) (int, error) {
	data, err := json.Marshal(x)
	if err != nil {
		return 0, d.errorf(n, path, "%s cannot be sent to the API server, which takes JSON (%v); quote it to send it as text", describe(n), err)
	}
	return len(data), nil
}

// closing charges the end of a mapping or list of n items; one with no
// items has had no opening charged either.
func (d *decoder) closing(n int) error {
	if n == 0 {
		return d.charge(2)
	}
	return d.charge(1)
}

// charge adds size bytes of JSON to the create object being converted and
// refuses it once it, or all of them together, is over its limit.
func (d *decoder) charge(size int) error {
	d.objectBytes += size
	d.createBytes += size
	switch {
	case d.objectBytes > MaxObjectBytes:
		return posError(d.source, d.lines[d.createPath], d.createPath, fmt.Sprintf("the object is larger than %s as JSON, more than the API server and etcd should be sent at once; make it smaller", mib(MaxObjectBytes)))
	case d.createBytes > MaxCreateBytes:
		return posError(d.source, d.lines[d.createPath], d.createPath, fmt.Sprintf("the create objects add up to more than %s as JSON; create fewer or smaller objects", mib(MaxCreateBytes)))
	}
	return nil
}

// fieldsOf maps the yaml names of t's fields (inline ones included) to their
// indexes, and lists the names in declaration order for messages.
func fieldsOf(t reflect.Type) (map[string][]int, []string) {
	fields, names := map[string][]int{}, []string(nil)
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		switch {
		case name == "-":
		case strings.Contains(opts, "inline"):
			inner, innerNames := fieldsOf(f.Type)
			for _, n := range innerNames {
				fields[n] = append([]int{i}, inner[n]...)
			}
			names = append(names, innerNames...)
		default:
			fields[name] = []int{i}
			names = append(names, name)
		}
	}
	return fields, names
}

// takes introduces the list of fields in unknown-field messages: the shared
// types have their phrase, a mechanism's types are named by the field that
// holds them ("setCondition takes", "operators[0] takes").
func (d *decoder) takes(t reflect.Type, path string) string {
	switch t {
	case reflect.TypeFor[Condition]():
		return "a condition takes"
	case reflect.TypeFor[Expect]():
		return "expect takes"
	case reflect.TypeFor[Chaos]():
		return "chaos takes"
	case reflect.TypeFor[Range]():
		return "a range takes"
	}
	return path[strings.LastIndexByte(path, '.')+1:] + " takes"
}

func join(path, field string) string {
	if path == "" {
		return field
	}
	return path + "." + field
}

func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	return strconv.Quote(n.Value)
}

// UnmarshalYAML reads a duration written as Go writes it. A bare number is
// refused: 600 could mean seconds or nanoseconds, so a unit is required.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("want a duration like \"10m\", got %s", describe(n))
	}
	if tag := n.ShortTag(); tag == "!!int" || tag == "!!float" {
		return fmt.Errorf("%s has no unit; add one, like \"%ss\" or \"%sm\"", n.Value, n.Value, n.Value)
	}
	v, err := time.ParseDuration(n.Value)
	if err != nil {
		return fmt.Errorf("%q is not a duration; write it like \"10m\", \"1h30m\" or \"45s\"", n.Value)
	}
	d.Duration = v
	return nil
}
