// Package apitest runs package probe's library on a real kube-apiserver
// with the fixtures' CRDs installed (the World installs them all): the
// Probe kind discovered, claimed, its Upgradeable condition set, and the
// seed's refusals; and the seed 002 fixtures' schemas as the API server
// applies them (what they accept, reject, default and prune). It holds
// tests only; the unit tests of the library's checks, on a fake client,
// stay in package probe.
package apitest
