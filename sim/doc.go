// Package sim is the deterministic simulator: a fake clock, a scheduler that
// drives actors (reference controllers, simulated operator processes, a
// user's reconcilers, scenario steps) to quiescence before jumping the clock
// to the next deadline, and a recording client through which every API write
// lands on the run's timeline, with the change to its conditions and to the
// fields its mechanism registered (Scheduler.RecordFields). The same client
// answers an actor's calls with an API error while a fault is in force
// (Scheduler.FailCalls, faults.go).
//
// Determinism: one scenario and one seed give one timeline. Work due at the
// same virtual instant runs in batches; items for different objects may run
// in parallel (the API server is the floor, and two calls in flight use both
// cores), items for the same object run in the order they were queued, and
// the events of a batch are appended in object order, so the timeline does
// not depend on goroutine scheduling. Events from outside the API server
// (Scheduler.Record) take the same path when given the work's context.
// An actor that reads other objects than the one it reconciles (one with a
// Watch that maps writes to other requests, or Actor.ReadsOthers) would see
// whichever parallel write came first, so a batch holding its work runs one
// object at a time, in the same order: its events land where they would
// have anyway. Writes wake watchers in the order they were made, actors in
// name order, each actor's requests sorted, one pending item per actor and
// request, so the queue itself is the same in every run.
package sim
