package main

import (
	"fmt"
	"strconv"
)

// minTimeScale is the smallest --time-scale: at 0.001 a 10m threshold is
// 600ms, already under the second of tolerance a real-time run's rules
// allow (conformance.RealtimeTolerance); smaller factors judge nothing
// real and, at the limit, scale every threshold to zero.
const minTimeScale = 0.001

// timeScaleFlag is --time-scale, checked when the flag is parsed, before
// anything starts: a factor that is not a number in [minTimeScale, 1] is
// the input's fault (exit 2). 0 is refused, not read as 1 as a zero
// conformance.Options.TimeScale is: on the command line it can only be a
// mistake. NaN, which every comparison lets through, and Inf are refused
// as not numbers in range.
type timeScaleFlag struct{ v *float64 }

func (f timeScaleFlag) String() string {
	if f.v == nil {
		return "1"
	}
	return strconv.FormatFloat(*f.v, 'g', -1, 64)
}

func (f timeScaleFlag) Set(s string) error {
	x, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("not a number: give a factor from %g to 1 (0.01 plays a 10m challenge after 6s)", minTimeScale)
	}
	if !(x >= minTimeScale && x <= 1) { // NaN fails every comparison
		return fmt.Errorf("out of range: give a factor from %g to 1 (0.01 plays a 10m challenge after 6s; 1 is real time)", minTimeScale)
	}
	*f.v = x
	return nil
}

func (f timeScaleFlag) Type() string { return "float" }
