// Package staticpodinstaller is an installer for static pods written the
// way a team writes one from the enhancement "Fallback on failing
// revisions of static pods" (opcert's seed 003), with the standard
// library and nothing of opcert. It installs one revision on one node
// and exits, as an installer pod does: under the installer lock (waiting
// while someone else holds it, 003 §Coordination of Installer and
// Startup-Monitor), it copies the revision's files as the operator
// rendered them into the revision's resource directory, then puts the
// revision's startup-monitor manifest and then its operand manifest into
// the kubelet's manifest directory, so that a new operand never runs
// without its monitor (003 §Proposal: the monitor "is created by
// installer as another manifest"). It exits 0 once installed, 1 on an
// error.
//
// Every file is written whole: a temporary file whose name begins with a
// dot, renamed into place. The lock is a file created exclusively,
// holding who took it, and removed to release it.
//
// Running it under opcert (process mode, conformance/staticpod/README.md):
//
//	opcert run --mechanism staticpod --time-scale 0.01 \
//	  --subject staticpod.installer=exec:'./staticpodinstaller --revision {revision}
//	    --source-dir {sourceDir} --resources-dir {resourcesDir}
//	    --manifests-dir {manifestsDir} --lock-file {lockFile}'
//
// Every flag defaults to its OPCERT_<KEY> variable, which opcert sets, so
// exec:./staticpodinstaller alone works too.
package staticpodinstaller
