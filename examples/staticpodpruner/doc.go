// Package staticpodpruner is a pruner for static pods written the way a
// team writes one from the enhancement "Fallback on failing revisions of
// static pods" (opcert's seed 003), with the standard library and
// nothing of opcert. It prunes once and exits, as a prune pod does: it
// deletes the resource directories of old revisions, keeping the newest
// Keep and, as the seed extends the pruner (003 §Pruner: "It must be
// extended to ignore it and the linked revision"), the last-known-good
// link and the revision it points to. It exits 0 once done, 1 on an
// error.
//
// Running it under opcert (process mode, conformance/staticpod/README.md):
//
//	opcert run --mechanism staticpod --time-scale 0.01 \
//	  --subject staticpod.pruner=exec:'./staticpodpruner --resources-dir {resourcesDir} --keep {keep}'
//
// Every flag defaults to its OPCERT_<KEY> variable, which opcert sets, so
// exec:./staticpodpruner alone works too.
package staticpodpruner
