package payload

import (
	"regexp"
	"strconv"

	yaml "go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Manifest is one object of a payload file. Manifests share their Object
// with the Payload: read it, do not change it.
type Manifest struct {
	File  string // the file's name in the payload directory
	Index int    // the object's place among the file's objects, from 0
	Line  int    // the file's line where the object starts, from 1
	Seq   int    // the object's place in the sweep: Payload.Manifests[Seq]

	// APIVersion, Kind, Namespace and Name are the object's, as the manifest gives them.
	APIVersion, Kind, Namespace, Name string
	// Object is the object as read: the payload's own, shared.
	Object *unstructured.Unstructured

	// RunLevel and Component come from a file name of the form
	// 0000_<runlevel>_<component>_<rest> ("50" and "example-operator" for
	// 0000_50_example-operator_03_deployment.yaml); both are empty for a
	// file named otherwise.
	RunLevel, Component string

	// tree is the document as YAML nodes, for LineOf; nil when the object
	// could be read but not its positions. Its lines count from the
	// document's first line, which is the file's line offset+1.
	tree   *yaml.Node
	offset int
}

// GroupVersionKind is the object's group, version and kind.
func (m Manifest) GroupVersionKind() schema.GroupVersionKind {
	return schema.FromAPIVersionAndKind(m.APIVersion, m.Kind)
}

// LineOf is the file's line of the field at path, a key of a mapping or
// the index of a list item at each step ("status", "versions", "0"), or of
// the deepest part of path the object has; m.Line when it has none of it.
func (m Manifest) LineOf(path ...string) int {
	line, n := m.Line, m.tree
	for _, step := range path {
		next, at := child(n, step)
		if next == nil {
			break
		}
		line, n = at+m.offset, next
	}
	return line
}

// child finds step under n: the value of the key step in a mapping (the
// last one if the key is repeated, as the object has it), or the item
// numbered step in a list, with the line it starts on.
func child(n *yaml.Node, step string) (*yaml.Node, int) {
	if n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n == nil {
		return nil, 0
	}
	switch n.Kind {
	case yaml.MappingNode:
		var found *yaml.Node
		at := 0
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k := n.Content[i]; k.Value == step {
				found, at = n.Content[i+1], k.Line
			}
		}
		return found, at
	case yaml.SequenceNode:
		i, err := strconv.Atoi(step)
		if err != nil || i < 0 || i >= len(n.Content) {
			return nil, 0
		}
		return n.Content[i], n.Content[i].Line
	}
	return nil, 0
}

// namePattern is the version operator's file naming,
// 0000_<runlevel>_<component>_<rest>: a component is words of letters and
// digits joined by dashes.
var namePattern = regexp.MustCompile(`^0000_([0-9]+)_([a-zA-Z0-9]+(?:-[a-zA-Z0-9]+)*)_`)

// runLevel reads the run level and component from a file's name.
func runLevel(file string) (level, component string) {
	if m := namePattern.FindStringSubmatch(file); m != nil {
		return m[1], m[2]
	}
	return "", ""
}
