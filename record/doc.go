// Package record turns what a live API server holds into the timeline the
// simulator writes, so that the same rules judge real clusters: Recorder
// lists and watches the kinds a mechanism names (Recording)
// and records every change it sees, with the field manager that made it,
// the condition diff, and wall-clock times to the millisecond; Open reads a
// captured timeline (opcert's JSON lines, or the JSON stream of
// `kubectl get -w -o json`) one event at a time, telling the formats
// apart by their first value. The package names no mechanism: kinds,
// fields and the manager-to-role mapping come from the mechanism.
//
// What a recording cannot know it says: a watch that expires (410 Gone) or
// breaks is relisted, and the span is a recording gap on the timeline
// (lost, resumed), in which conformance judges nothing.
package record
