package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"

	"github.com/opcert/opcert/scenarios"
)

// goDocs reads the doc comments of the module's own declarations from its
// source, so that a generated reference says what the code's comments
// say instead of a second, hand-kept text. It reads a package's files the
// first time one of its declarations is asked for.
type goDocs struct {
	root   string          // the module's directory
	module string          // the module's import path
	read   map[string]bool // import paths whose files were read
	types  map[string]string
	fields map[string]string
	consts map[string]string
}

// moduleDocs reads from the module that holds the working directory or
// one above it (make docs runs at its root, a test in its package).
func moduleDocs() (*goDocs, error) {
	dir, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		up := filepath.Dir(dir)
		if up == dir {
			return nil, fmt.Errorf("the references are written from opcert's source, and no go.mod is in the working directory or above it: run make docs in the repository")
		}
		dir = up
	}
	module := strings.TrimSuffix(reflect.TypeFor[scenarios.Scenario]().PkgPath(), "/scenarios")
	return &goDocs{root: dir, module: module, read: map[string]bool{},
		types: map[string]string{}, fields: map[string]string{}, consts: map[string]string{}}, nil
}

// typeDoc is the doc comment of the named type t; "" for none.
func (g *goDocs) typeDoc(t reflect.Type) (string, error) {
	err := g.load(t.PkgPath())
	return g.types[t.PkgPath()+"."+t.Name()], err
}

// fieldDoc is the comment of the field name of the struct type owner,
// the one above it or else the one at its line's end.
func (g *goDocs) fieldDoc(owner reflect.Type, name string) (string, error) {
	err := g.load(owner.PkgPath())
	return g.fields[owner.PkgPath()+"."+owner.Name()+"."+name], err
}

// constDoc is the comment of the string constant of the package pkg whose
// value is value (a step action's name is declared so).
func (g *goDocs) constDoc(pkg, value string) (string, error) {
	err := g.load(pkg)
	return g.consts[pkg+"."+value], err
}

// load reads the comments of the package at the import path pkg, once; a
// package outside the module has none to read.
func (g *goDocs) load(pkg string) error {
	if g.read[pkg] || (pkg != g.module && !strings.HasPrefix(pkg, g.module+"/")) {
		return nil
	}
	g.read[pkg] = true
	dir := filepath.Join(g.root, filepath.FromSlash(strings.TrimPrefix(strings.TrimPrefix(pkg, g.module), "/")))
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return err
	}
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		g.file(pkg, f)
	}
	return nil
}

// file records the comments of f's types, their fields, and its string
// constants.
func (g *goDocs) file(pkg string, f *ast.File) {
	for _, decl := range f.Decls {
		d, ok := decl.(*ast.GenDecl)
		if !ok {
			continue
		}
		for _, spec := range d.Specs {
			switch s := spec.(type) {
			case *ast.TypeSpec:
				doc := s.Doc
				if doc == nil && len(d.Specs) == 1 {
					doc = d.Doc // type T struct: the comment is the declaration's
				}
				g.types[pkg+"."+s.Name.Name] = text(doc)
				if st, ok := s.Type.(*ast.StructType); ok {
					for _, field := range st.Fields.List {
						for _, n := range field.Names {
							g.fields[pkg+"."+s.Name.Name+"."+n.Name] = text(field.Doc, field.Comment)
						}
					}
				}
			case *ast.ValueSpec:
				for i, v := range s.Values {
					lit, ok := v.(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING || i >= len(s.Names) {
						continue
					}
					value, err := strconv.Unquote(lit.Value)
					if doc := text(s.Doc, s.Comment); err == nil && d.Tok == token.CONST && doc != "" {
						g.consts[pkg+"."+value] = doc // of two constants of a value, the one that says something
					}
				}
			}
		}
	}
}

// text is the first comment group given, as one line.
func text(groups ...*ast.CommentGroup) string {
	for _, c := range groups {
		if c != nil {
			return strings.Join(strings.Fields(c.Text()), " ")
		}
	}
	return ""
}
