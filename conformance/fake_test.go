package conformance

import (
	"context"

	"github.com/opcert/opcert/scenarios"
)

// fake is a mechanism of a test: its declarations, and build as its Build
// (none: a world with no actions).
type fake struct {
	Declared
	build func(context.Context, *Stage, *scenarios.Scenario, Cast) (Actions, error)
}

func (f fake) Build(ctx context.Context, st *Stage, sc *scenarios.Scenario, cast Cast) (Actions, error) {
	if f.build == nil {
		return nil, nil
	}
	return f.build(ctx, st, sc, cast)
}

// fakeScalable is a fake that can scale its times, scaled.
type fakeScalable struct {
	fake
	scaled func(float64) Mechanism
}

func (f fakeScalable) Scaled(scale float64) Mechanism { return f.scaled(scale) }
