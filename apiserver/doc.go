// Package apiserver starts the API server a run talks to: a real kube-apiserver
// and etcd through controller-runtime's envtest, with the fixtures' CRDs
// installed, and hands out unthrottled clients for it. One Server serves a
// whole `opcert run`; scenarios keep apart by name prefix.
package apiserver
