// Package timeline holds the record of a run: every API write, every injected
// fault and every expectation, stamped with the virtual time and the actor
// that caused it. Conformance rules read only timelines, so the same rules
// judge simulated runs, real-time runs and timelines captured from clusters.
//
// An API write carries the object's group, kind and name, the change to its
// status conditions (by type, so reordering them is no change) and the
// change to the fields its mechanism registered. Facts from outside the API
// server (processes, node files, HTTP probes) are events of the same shape
// on objects of a non-API kind (KindProcess, KindFile, KindProbe), so rules
// read one ordered record.
package timeline
