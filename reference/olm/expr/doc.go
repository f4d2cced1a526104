// Package expr is the language of OLM's condition annotations (seed 002):
// the boolean expressions over condition types that an operator writes on
// its owned CRDs, under olm.operatorframework.io/condition.<Name>, and that
// the Probe's spec carries as probeResources[].upgradeable and .important
// (002 §Opting into OLM Supported Conditions, 002 §Example Workflow).
//
// The seed gives examples ("!Migrating", "FinishedMigrating && ReadyToGo",
// "BadConnectivity || UnhealthyDatabase") but no grammar; this is the one
// opcert fixes (decision 002, conformance/olm/README.md):
//
//	expr    = and { "||" and }              left-associative
//	and     = unary { "&&" unary }          left-associative
//	unary   = "!" unary | "(" expr ")" | type
//	type    = [ prefix "/" ] CamelCase
//	prefix  = a DNS subdomain (lower-case letters, digits, '-' and '.')
//	CamelCase = an upper-case letter, then letters and digits (ASCII)
//
// Spaces, tabs and line breaks may separate tokens. '!' binds tightest, then
// '&&', then '||'. Nesting of '(' and '!' is bounded (100 levels) so that no
// input can exhaust the stack. A SyntaxError gives the 0-based byte offset
// of the problem, what was expected and what was found; its text counts
// columns from 1.
//
// Evaluation is three-valued (Kleene) over a CR's .status.conditions: a
// condition type that is missing, or whose status is neither "True" nor
// "False", is Unknown (decision 002, conformance/olm/README.md; an Unknown
// result is the seed's "cannot be calculated", 002 §Test Plan, and never
// blocks an upgrade):
//
//	x        !x
//	True     False
//	False    True
//	Unknown  Unknown
//
//	x && y   y=True   y=False  y=Unknown
//	True     True     False    Unknown
//	False    False    False    False
//	Unknown  Unknown  False    Unknown
//
//	x || y   y=True   y=False  y=Unknown
//	True     True     True     True
//	False    True     False    Unknown
//	Unknown  True     Unknown  Unknown
//
// An Important expression may only use '||' (and parentheses): the seed's
// comment "The Important condition should only include the `OR` boolean
// operator" (002 §Example Workflow). ParseAnnotation rejects '&&' and '!'
// there, naming the position, and rejects annotation names other than
// Upgradeable and Important (002 §Design Details, the table of OLM
// Supported Conditions).
//
// Expr.String prints a canonical form with the fewest parentheses that
// re-parse to the same tree; parentheses that hold a right-nested chain,
// as in "A || (B || C)", are kept, since the tree differs from "A || B || C"
// even where the value does not.
package expr
