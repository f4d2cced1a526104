// Package timeline holds the record of a run: every API write, every injected
// fault and every expectation, stamped with the virtual time and the actor
// that caused it. Conformance rules read only timelines, so the same rules
// judge simulated runs, real-time runs and timelines captured from clusters.
package timeline
