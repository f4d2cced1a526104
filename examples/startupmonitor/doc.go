// Package startupmonitor is a startup-monitor for static pods written the
// way a team writes one from the enhancement "Fallback on failing
// revisions of static pods" (opcert's seed 003), with plain client-go and
// nothing of opcert. It watches the operand of its revision once the
// operand's manifest of that revision is in place, and either, once the
// operand is ready, links last-known-good to the revision and removes its
// own manifest, or, when the operand is not ready within the timeout,
// copies the manifest of the last known good revision (else of the
// newest older one still on the node; else nothing) back into place with
// the three fallback annotations. Both under the installer lock.
//
// Where the seed leaves it open, it reads it so (differently from
// opcert's reference monitor, which is allowed): the timeout runs from the
// modification time of the operand manifest it first finds of its
// revision, not from its first look; it
// looks every Interval (100ms by default); an etcd check among the
// unfinished /readyz checks makes the reason EtcdUnhealthy, as the seed's
// Test Plan says, even when /healthz is red too; it keeps running after
// step 2 until the kubelet stops it.
//
// The node's layout it reads is the one the seed names, under directories
// it is given: <manifests>/<operand>-pod.yaml (the operand's manifest,
// its "revision" annotation), <resources>/<operand>-pod-<N>/ (a
// revision's files, its manifest <operand>-pod.yaml),
// <resources>/last-known-good (a relative link to one of them), the lock
// file, and the operand's termination.log (one line per start, naming
// "revision <N>"). The operand's /healthz and /readyz are under a base URL,
// its mirror pod in the API server (KUBECONFIG).
//
// Running it under opcert (process mode, conformance/staticpod/README.md):
//
//	opcert run --mechanism staticpod --time-scale 0.01 \
//	  --subject staticpod.startup-monitor=exec:'./startupmonitor --revision {revision} --timeout {timeout}
//	    --manifest {manifest} --manifests-dir {manifestsDir} --resources-dir {resourcesDir}
//	    --lock-file {lockFile} --termination-log {terminationLog} --health-url {healthUrl}
//	    --namespace {namespace} --pod {pod}'
//
// Every flag defaults to its OPCERT_<KEY> variable, which opcert sets, so
// exec:./startupmonitor alone works too.
package startupmonitor
