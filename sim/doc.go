// Package sim is the deterministic simulator: a fake clock, a scheduler that
// drives actors (reference controllers, simulated operator processes, a
// user's reconcilers, scenario steps) to quiescence before jumping the clock
// to the next deadline, and a recording client through which every API write
// lands on the run's timeline.
//
// Determinism: one scenario and one seed give one timeline. Work due at the
// same virtual instant runs in batches; items for different objects may run
// in parallel (the API server is the floor, and two calls in flight use both
// cores), items for the same object run in the order they were queued, and
// the events of a batch are appended in object order, so the timeline does
// not depend on goroutine scheduling. Actors that act on one object and read
// others in the same instant would break this; no mechanism here does.
package sim
