package scenarios

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
)

// drawStream is the second word of the random source a draw number
// seeds: a fixed constant, so that a draw number names one scenario for
// good.
const drawStream = 0x0b5e55ed

// Drawn is the scenario that draw (a number) draws for mechanism over duration (the
// kind's Draw), written out and read back as a file would be: what runs is
// exactly what its file replays. Name is fuzz-<mechanism>-<draw>.
func Drawn(mechanism string, draw uint64, duration time.Duration) (*Scenario, []byte, error) {
	k, ok := kindOf(mechanism)
	if !ok || k.Draw == nil {
		return nil, nil, fmt.Errorf("mechanism %q cannot draw random scenarios; these can: %s", mechanism, strings.Join(Drawable(), ", "))
	}
	world, steps := k.Draw(rand.New(rand.NewPCG(draw, drawStream)), duration)
	name := fmt.Sprintf("fuzz-%s-%d", mechanism, draw)
	s := &Scenario{
		Name:        name,
		Description: fmt.Sprintf("Drawn by opcert fuzz --mechanism %s --draw %d --duration %s.", mechanism, draw, duration),
		Mechanism:   mechanism, Duration: Duration{duration}, World: world, Steps: steps,
	}
	return Reread(s, name+".yaml")
}

// Reread encodes s and parses it back under source: the scenario a file
// of it would give, and the file; an error when s is not one the format
// allows.
func Reread(s *Scenario, source string) (*Scenario, []byte, error) {
	data, err := Encode(s)
	if err != nil {
		return nil, nil, err
	}
	back, err := Parse(source, data)
	if err != nil {
		return nil, nil, fmt.Errorf("a drawn or shrunk scenario does not read back (a bug of the mechanism's Draw or of Encode): %w", err)
	}
	return back, data, nil
}

// Shrinking looks for a smaller scenario that still fails.
type Shrinking struct {
	// Fails runs a candidate and tells whether the failure is still there.
	// An error (the environment failed) stops the shrinking.
	Fails func(*Scenario) (bool, error)
	// Budget is how many candidates may be run.
	Budget int
	// Runs counts the candidates run.
	Runs int
}

// Shrink returns the smallest scenario it finds for which Fails holds,
// starting from s (which fails): steps removed (half of them at a time,
// then quarters, down to one at a time), then each step moved earlier (to
// the step before it, or halfway there), then the time after the last step
// halved. Every candidate is written and read back like a file, so it is
// valid and its file replays it; one that does not read back is skipped
// without a run. The result's source is source.
func (sh *Shrinking) Shrink(s *Scenario, source string) (*Scenario, []byte, error) {
	best, data, err := Reread(s, source)
	if err != nil {
		return nil, nil, err
	}
	try := func(c *Scenario) (bool, error) {
		if sh.Runs >= sh.Budget {
			return false, nil
		}
		back, bytes, err := Reread(c, source)
		if err != nil {
			return false, nil // not a scenario the format allows: not a candidate
		}
		sh.Runs++
		ok, err := sh.Fails(back)
		if ok && err == nil {
			best, data = back, bytes
		}
		return ok, err
	}
	for _, pass := range []func(*Scenario, func(*Scenario) (bool, error)) error{removeSteps, moveSteps, cutDuration} {
		if err := pass(best, try); err != nil {
			return best, data, err
		}
	}
	return best, data, nil
}

// with returns a copy of s with the given steps, in time order.
func with(s *Scenario, steps []Step) *Scenario {
	c := *s
	c.Steps = slices.Clone(steps)
	slices.SortStableFunc(c.Steps, func(a, b Step) int { return cmp.Compare(a.Time, b.Time) })
	return &c
}

// removeSteps removes chunks of steps, halving the chunk until single
// steps, and starts over while removing single steps helps.
func removeSteps(s *Scenario, try func(*Scenario) (bool, error)) error {
	steps := s.Steps
	for chunk := max(len(steps)/2, 1); chunk >= 1; chunk /= 2 {
		for start := 0; start < len(steps); {
			cand := append(slices.Clone(steps[:start]), steps[min(start+chunk, len(steps)):]...)
			ok, err := try(with(s, cand))
			if err != nil {
				return err
			}
			if ok {
				steps = cand
				continue
			}
			start += chunk
		}
	}
	return nil
}

// moveSteps moves each step as early as the failure allows: to the time
// of the step before it (0 for the first) if it can, else bisecting
// towards it, to the second.
func moveSteps(s *Scenario, try func(*Scenario) (bool, error)) error {
	steps := slices.Clone(s.Steps)
	for i := range steps {
		prev := time.Duration(0)
		if i > 0 {
			prev = steps[i-1].Time
		}
		at := func(t time.Duration) (bool, error) {
			cand := slices.Clone(steps)
			cand[i].Time, cand[i].At, cand[i].Advance = t, nil, nil
			ok, err := try(with(s, cand))
			if ok {
				steps = cand
			}
			return ok, err
		}
		if err := earliest(prev, steps[i].Time, at); err != nil {
			return err
		}
	}
	return nil
}

// cutDuration ends the run as early after the last step as the failure
// allows, to the second.
func cutDuration(s *Scenario, try func(*Scenario) (bool, error)) error {
	last := time.Duration(0)
	for _, st := range s.Steps {
		last = max(last, st.Time)
	}
	return earliest(last+time.Second, s.Duration.Duration, func(d time.Duration) (bool, error) {
		c := with(s, s.Steps)
		c.Duration = Duration{d}
		return try(c)
	})
}

// maxBisect bounds the runs spent placing one step or the end.
const maxBisect = 16

// earliest finds, between lo and hi (where the failure is), the earliest
// instant at which ok still holds: lo itself, or by bisection to the
// second, in at most maxBisect tries.
func earliest(lo, hi time.Duration, ok func(time.Duration) (bool, error)) error {
	if lo >= hi {
		return nil
	}
	if yes, err := ok(lo); yes || err != nil {
		return err
	}
	for range maxBisect {
		mid := (lo + (hi-lo)/2).Truncate(time.Second)
		if mid <= lo || mid >= hi {
			return nil
		}
		yes, err := ok(mid)
		if err != nil {
			return err
		}
		if yes {
			hi = mid
		} else {
			lo = mid
		}
	}
	return nil
}
