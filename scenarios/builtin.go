package scenarios

import (
	"embed"
	"fmt"
	"strings"
)

//go:embed builtin/*.yaml
var builtinFiles embed.FS

// Builtin parses the built-in scenario library, sorted by file name. Each
// call returns fresh scenarios, so callers may change them.
func Builtin() ([]*Scenario, error) {
	entries, err := builtinFiles.ReadDir("builtin")
	if err != nil {
		return nil, err
	}
	var all []*Scenario
	for _, e := range entries { // ReadDir sorts by file name
		data, err := builtinFiles.ReadFile("builtin/" + e.Name())
		if err != nil {
			return nil, err
		}
		s, err := Parse("builtin:"+e.Name(), data)
		if err != nil {
			return nil, err
		}
		all = append(all, s)
	}
	return all, nil
}

// BuiltinNamed returns the built-in scenario with the given name, or from
// the given file ("02-operator-death" or "02-operator-death.yaml").
func BuiltinNamed(name string) (*Scenario, error) {
	all, err := Builtin()
	if err != nil {
		return nil, err
	}
	var names []string
	for _, s := range all {
		file := strings.TrimPrefix(s.Source, "builtin:")
		if s.Name == name || file == name || file == name+".yaml" {
			return s, nil
		}
		names = append(names, s.Name)
	}
	return nil, fmt.Errorf("no built-in scenario %q; available: %s", name, strings.Join(names, ", "))
}
