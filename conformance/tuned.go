package conformance

import "time"

// Timed is a configuration, through its pointer, that says where it
// keeps the reaction bound its rules judge with and the tolerance they
// allow on deadlines (each a pointer into the configuration).
type Timed[C any] interface {
	*C
	// Timing points at the reaction bound and the tolerance within the
	// configuration.
	Timing() (bound, tolerance *time.Duration)
}

// Tuned makes a mechanism Reactive and Tolerant from its configuration,
// so that no mechanism writes the same three methods: Config says where
// it keeps the bound and the tolerance (Timed), Rebuild how the
// mechanism is built from a configuration. A mechanism embeds it beside
// Declared; one whose tolerance means more than a larger slack writes
// its own WithTolerance, which wins over the embedded one.
type Tuned[C any, P Timed[C]] struct {
	// Config is the mechanism's configuration as built.
	Config C
	// Rebuild builds the mechanism again from a changed configuration.
	Rebuild func(C) Mechanism
}

// Tune is the Tuned of cfg, rebuilt with rebuild.
func Tune[C any, P Timed[C]](cfg C, rebuild func(C) Mechanism) Tuned[C, P] {
	return Tuned[C, P]{Config: cfg, Rebuild: rebuild}
}

// Reaction is the bound the rules were built with.
func (t Tuned[C, P]) Reaction() time.Duration {
	c := t.Config
	bound, _ := P(&c).Timing()
	return *bound
}

// WithReaction is the mechanism judged with bound d.
func (t Tuned[C, P]) WithReaction(d time.Duration) Mechanism {
	c := t.Config
	bound, _ := P(&c).Timing()
	*bound = d
	return t.Rebuild(c)
}

// WithTolerance is the mechanism judged with at least d of slack.
func (t Tuned[C, P]) WithTolerance(d time.Duration) Mechanism {
	c := t.Config
	_, slack := P(&c).Timing()
	*slack = max(*slack, d)
	return t.Rebuild(c)
}
