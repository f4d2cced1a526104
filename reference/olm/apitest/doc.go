// Package apitest plays the adapters of the OLM reference (package olm:
// Aggregator, Gate, Copier) on a real kube-apiserver with the fixtures'
// CRDs (the Probe, OperatorCondition v2, Upgrade and the sample owned CRDs
// foos.example.com and bars.example.com), called directly in virtual time
// with a plain client. It holds tests only; the cores' table tests are in
// package olm.
package apitest
