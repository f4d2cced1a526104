package scenarios

import (
	"bytes"
	"fmt"
	"reflect"

	"go.yaml.in/yaml/v3"
)

// Encode writes a scenario back as a file Parse reads to the same scenario:
// the shared fields, the World's fields beside them, and each step at its
// resolved time (at, never advance). opcert fuzz writes the schedules it
// draws and shrinks this way, so that a failure is replayed with
// `opcert run --scenario-file`.
func Encode(s *Scenario) ([]byte, error) {
	root := &yaml.Node{Kind: yaml.MappingNode}
	add := func(m *yaml.Node, key string, v any) error {
		var n yaml.Node
		if err := n.Encode(v); err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key}, &n)
		return nil
	}
	if err := add(root, "name", s.Name); err != nil {
		return nil, err
	}
	if s.Description != "" {
		if err := add(root, "description", s.Description); err != nil {
			return nil, err
		}
	}
	if err := add(root, "mechanism", s.Mechanism); err != nil {
		return nil, err
	}
	if err := add(root, "duration", s.Duration); err != nil {
		return nil, err
	}
	if s.World != nil {
		var w yaml.Node
		if err := w.Encode(s.World); err != nil {
			return nil, fmt.Errorf("world: %w", err)
		}
		if w.Kind == yaml.MappingNode {
			root.Content = append(root.Content, w.Content...)
		}
	}
	if len(s.Steps) > 0 {
		steps := &yaml.Node{Kind: yaml.SequenceNode}
		for i, st := range s.Steps {
			n, err := encodeStep(st)
			if err != nil {
				return nil, fmt.Errorf("steps[%d]: %w", i, err)
			}
			steps.Content = append(steps.Content, n)
		}
		root.Content = append(root.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "steps"}, steps)
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func encodeStep(st Step) (*yaml.Node, error) {
	m := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle}
	add := func(key string, v any) error {
		var n yaml.Node
		if err := n.Encode(v); err != nil {
			return err
		}
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key}, &n)
		return nil
	}
	if err := add("at", Duration{st.Time}); err != nil {
		return nil, err
	}
	var err error
	switch {
	case st.Create != nil:
		m.Style = 0
		err = add("create", st.Create)
	case st.Expect != nil:
		err = add("expect", st.Expect)
	case st.APIErrors != nil:
		err = add("apiErrors", st.APIErrors)
	case st.Perturb != nil:
		err = add("perturb", st.Perturb)
	case st.Action != "":
		err = add(st.Action, st.Arg)
	}
	return m, err
}

// MarshalYAML writes a duration as Go writes it ("10m0s"), which
// UnmarshalYAML reads back.
func (d Duration) MarshalYAML() (any, error) { return d.Duration.String(), nil }

// RoundTrip encodes s, parses the result, and says how the scenario read
// back differs from s ("" if it does not): what Encode writes must replay
// what was drawn or shrunk, exactly. Each mechanism's tests run it over
// their built-ins.
func RoundTrip(s *Scenario) (string, error) {
	data, err := Encode(s)
	if err != nil {
		return "", err
	}
	back, err := Parse(s.Source, data)
	if err != nil {
		return "", fmt.Errorf("%w\n%s", err, data)
	}
	if !reflect.DeepEqual(s.World, back.World) {
		return fmt.Sprintf("world %#v read back as %#v\n%s", s.World, back.World, data), nil
	}
	if s.Name != back.Name || s.Description != back.Description || s.Duration != back.Duration || len(s.Steps) != len(back.Steps) {
		return fmt.Sprintf("shared fields or step count differ\n%s", data), nil
	}
	for i, a := range s.Steps {
		b := back.Steps[i]
		if a.Time != b.Time || a.Action != b.Action || !reflect.DeepEqual(a.Arg, b.Arg) ||
			!reflect.DeepEqual(a.Create, b.Create) || !reflect.DeepEqual(a.Expect, b.Expect) || !reflect.DeepEqual(a.APIErrors, b.APIErrors) || !reflect.DeepEqual(a.Perturb, b.Perturb) {
			return fmt.Sprintf("steps[%d] %+v read back as %+v\n%s", i, a, b, data), nil
		}
	}
	return "", nil
}
