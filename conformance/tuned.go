package conformance

import "time"

// Tuned makes a mechanism Reactive and Tolerant from its configuration,
// so that no mechanism writes the same three methods: where a
// configuration holds the reaction bound and the tolerance on deadlines
// (each a pointer into the copy it is given), and how the mechanism is
// built from a configuration. A mechanism embeds it beside Declared; one
// whose tolerance means more than a larger slack writes its own
// WithTolerance, which wins over the embedded one.
type Tuned[C any] struct {
	// Config is the mechanism's configuration as built.
	Config C
	// Bound points at the reaction bound within a copy of Config.
	Bound func(*C) *time.Duration
	// Tolerance points at the tolerance on deadlines within a copy of Config.
	Tolerance func(*C) *time.Duration
	// Rebuild builds the mechanism again from a changed configuration.
	Rebuild func(C) Mechanism
}

// Reaction is the bound the rules were built with.
func (t Tuned[C]) Reaction() time.Duration {
	c := t.Config
	return *t.Bound(&c)
}

// WithReaction is the mechanism judged with bound d.
func (t Tuned[C]) WithReaction(d time.Duration) Mechanism {
	c := t.Config
	*t.Bound(&c) = d
	return t.Rebuild(c)
}

// WithTolerance is the mechanism judged with at least d of slack.
func (t Tuned[C]) WithTolerance(d time.Duration) Mechanism {
	c := t.Config
	slack := t.Tolerance(&c)
	*slack = max(*slack, d)
	return t.Rebuild(c)
}
