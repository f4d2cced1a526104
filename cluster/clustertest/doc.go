// Package clustertest is what the tests of cluster mode share: a stand-in
// for the controller-manager and the kubelet that envtest lacks (Kubelet:
// a Deployment's pod is a process here), a loop for the tests' own
// stand-ins of other controllers (Every), and the team's side of a
// cluster: applying a YAML file of objects (Apply), a kubeconfig of a user
// of its own (Kubeconfig), and what a run may leave behind (Labelled,
// SameState).
package clustertest
