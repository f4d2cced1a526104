package scenarios

import (
	"fmt"
	"io/fs"
	"strings"
)

// Builtin parses the built-in scenarios of every registered kind, by
// mechanism name and then file name. Each call returns fresh scenarios, so
// callers may change them.
func Builtin() ([]*Scenario, error) {
	var all []*Scenario
	for _, k := range Kinds() {
		if k.Builtins == nil {
			continue
		}
		entries, err := fs.ReadDir(k.Builtins, ".")
		if err != nil {
			return nil, err
		}
		for _, e := range entries { // ReadDir sorts by file name
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".yaml") {
				continue
			}
			data, err := fs.ReadFile(k.Builtins, e.Name())
			if err != nil {
				return nil, err
			}
			s, err := Parse("builtin:"+e.Name(), data)
			if err != nil {
				return nil, err
			}
			all = append(all, s)
		}
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
