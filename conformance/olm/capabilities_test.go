package olm

import "github.com/opcert/opcert/conformance"

// The capabilities the mechanism has, held by the compiler: they are
// found by type assertion, so a method misspelled would drop one silently.
var _ interface {
	conformance.Streaming
	conformance.Tolerant
	conformance.Scalable
	conformance.Reactive
	conformance.Estimating
	conformance.Limited
	conformance.Clustered
} = (*mechanism)(nil)
