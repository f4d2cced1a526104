// Package apitest plays the seed 004 reference operator (package
// stackable's Operator) on a real kube-apiserver with the fixtures'
// SampleCluster CRD, called directly in virtual time with a plain client;
// the tests write the workloads' status and pods by hand, as the
// controllers and the kubelet would. It holds tests only; the core's
// table tests are in package stackable.
package apitest
