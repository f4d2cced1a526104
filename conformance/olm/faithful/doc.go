// Package faithful holds faithful variants of seed 002's aggregator (the
// status probe operator a team brings): written from the seed alone, not
// from reference/olm or its texts, each choosing otherwise wherever the
// seed leaves a choice open, so that `opcert selftest` shows no OLM rule
// fails what the seed permits.
//
// Where they differ from the reference (and from each other):
//   - they resync rather than follow each event: a change schedules a
//     look Latency later (20s and 5s, within the 30s reaction bound), and
//     the look lists every CR of the annotated CRDs afresh;
//   - the order of spec.probeResources, of status.probeResources and of
//     a CR's reasons (002 gives none);
//   - the kind of a listed CR (the CR's kind, as an ObjectReference has
//     it, or the CRD's plural, as the seed's example writes it) and the
//     reason for a failed Upgradeable expression (the supported
//     condition's name, or the expression as written);
//   - Upgradeable's reason and message (the seed gives them by example);
//   - observedGeneration left out ("If set", 002 §Design Details) or set;
//   - no condition reporting wrong annotations (the seed names none): an
//     expression that does not parse cannot be calculated and blocks
//     nothing; an Important expression using && (the seed says it
//     "should only include" ||) is evaluated by one variant for the
//     condition types it names, ignored by the other.
//
// What they share is what 002 requires: the Probe named after the CSV in
// its namespace, created once a CRD opts in, its spec kept to the
// annotations when managed by crdAnnotations, left alone when managed by
// the operator or with a nil spec; Upgradeable False iff a CR's
// expression blocks under the reading in force (Kleene's three values:
// Unknown never blocks), True otherwise; every CR that blocks or has a
// True condition its Important expression names listed once with those
// reasons; lastTransitionTime moved exactly when a status changes.
package faithful
