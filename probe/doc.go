// Package probe holds the Probe of seed 002 (operators.coreos.com/v1alpha1,
// 002 §Design Details): its Go types, their registration in a scheme, and
// the library an operator uses to write its Probe itself (002 §Writing to
// the Probe Resource Directly).
//
// A Probe is named like the operator's CSV, in the operator's namespace. Its
// spec says who keeps it: OLM's aggregator (ManagerCRDAnnotations), which
// fills the spec from the owned CRDs' condition annotations and the status
// from their CRs' conditions, or the operator (ManagerOperator), which
// writes the status's Upgradeable condition through this package's Client.
// A nil spec means nobody aggregates (002 §Example Workflow).
//
// The Probe was proposed and never built upstream (OLM shipped the
// OperatorCondition instead), so its CRD is opcert's (fixtures) and these
// types are written by hand, deep copies included.
package probe
