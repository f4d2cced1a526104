package scenarios

import "reflect"

// Field is one field of the format as the loader reads it, for references
// generated from the code (make docs): Name is its YAML key, Type its
// value's Go type, and Owner and GoName the struct and Go field that
// declare it (an inline struct's field is its own struct's).
type Field struct {
	Name   string       // the YAML key
	Type   reflect.Type // the value's Go type
	Owner  reflect.Type // the struct that declares it
	GoName string       // its Go field's name in Owner
}

// Fields lists the fields a value of the struct type t takes in a
// scenario file, in the order of their declaration, those of inline
// structs in place: the very fields the loader reads, so that a reference
// made from them cannot list a field the loader refuses or leave one out.
func Fields(t reflect.Type) []Field {
	index, names := fieldsOf(t)
	out := make([]Field, 0, len(names))
	for _, name := range names {
		path := index[name]
		owner := t
		for _, i := range path[:len(path)-1] {
			owner = owner.Field(i).Type
		}
		f := owner.Field(path[len(path)-1])
		out = append(out, Field{Name: name, Type: f.Type, Owner: owner, GoName: f.Name})
	}
	return out
}
