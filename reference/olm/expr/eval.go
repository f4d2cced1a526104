package expr

import (
	"fmt"
	"strconv"
)

// Value is a truth value of three-valued (Kleene) logic. The zero value is
// Unknown, what a missing condition is.
type Value int

// The three values; a CR blocks on an Upgradeable expression only by a
// definite one (decision 002, conformance/olm/README.md).
const (
	Unknown Value = iota
	False
	True
)

// String is Unknown, False or True.
func (v Value) String() string {
	switch v {
	case Unknown:
		return "Unknown"
	case False:
		return "False"
	case True:
		return "True"
	}
	return "Value(" + strconv.Itoa(int(v)) + ")"
}

// ValueOf reads a condition's status: "True" and "False" are themselves,
// anything else ("Unknown", "", a typo) is Unknown.
func ValueOf(status string) Value {
	switch status {
	case "True":
		return True
	case "False":
		return False
	}
	return Unknown
}

// Eval computes e, asking status for the value of each condition type it
// needs (Unknown for a type the CR does not have). A side already False
// under && or True under || decides alone, so the other side is not asked.
// It panics on an Expr that is not one of this package's nodes.
func Eval(e Expr, status func(conditionType string) Value) Value {
	switch e := e.(type) {
	case Ident:
		return status(e.Name)
	case Not:
		switch Eval(e.X, status) {
		case True:
			return False
		case False:
			return True
		}
		return Unknown
	case And:
		l := Eval(e.L, status)
		if l == False {
			return False
		}
		r := Eval(e.R, status)
		switch {
		case r == False:
			return False
		case l == True && r == True:
			return True
		}
		return Unknown
	case Or:
		l := Eval(e.L, status)
		if l == True {
			return True
		}
		r := Eval(e.R, status)
		switch {
		case r == True:
			return True
		case l == False && r == False:
			return False
		}
		return Unknown
	}
	panic(fmt.Sprintf("expr: %T is not an expression of this package", e))
}

// Vars lists the condition types e names, in the order they first appear,
// each once: for an Important expression, the types whose True conditions
// the Probe surfaces (002 §Example Workflow).
func Vars(e Expr) []string {
	var vars []string
	seen := map[string]bool{}
	var walk func(Expr)
	walk = func(e Expr) {
		switch e := e.(type) {
		case Ident:
			if !seen[e.Name] {
				seen[e.Name] = true
				vars = append(vars, e.Name)
			}
		case Not:
			walk(e.X)
		case And:
			walk(e.L)
			walk(e.R)
		case Or:
			walk(e.L)
			walk(e.R)
		default:
			panic(fmt.Sprintf("expr: %T is not an expression of this package", e))
		}
	}
	walk(e)
	return vars
}
