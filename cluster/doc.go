// Package cluster is what cluster mode (opcert run --kubeconfig) needs to
// play scenarios on a cluster opcert did not start, safely: the
// kubeconfig loaded (Load), the permissions checked before anything is
// written (Missing), the kinds a run may create (KindPolicy), a client
// that labels what it creates and refuses to write anything else but an
// explicit list (Guard), the cleanup of what the run created
// (Guard.Cleanup), the record of a run and the sweep of what runs killed
// outright left (Record, Sweep), and kind clusters for nightly CI (Up,
// Down). It names no mechanism: what a mechanism's runs would touch and
// create comes from conformance.Clustered.Touches and ClusterKinds.
package cluster
