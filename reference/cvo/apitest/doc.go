// Package apitest plays the reference cluster-version operator's adapter
// (cvo.Operator) on a real kube-apiserver: the example payloads of
// fixtures/payloads installed, upgraded, refused and timed out, in virtual
// time, called directly with a plain client, and once as an actor of the
// simulator on its recording client. It holds tests only; the unit tests
// of the core and of TasksOf stay in package cvo, which needs no API
// server.
//
// The API server is shared by the package's tests (apiservertest.Main),
// so each test copies its payload with names of its own (every "example"
// becomes "<test>-example") and gives its Operator a ClusterVersion of its
// own name instead of the singleton "version" (the simulator's run prefix
// does both for the actor); the tests run one after another.
package apitest
