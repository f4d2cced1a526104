package scenarios

import (
	"cmp"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
)

// Fault is one planned chaos fault: at At the process is killed (or hung, if
// Hang), and at Until it is restarted (or reconnected).
type Fault struct {
	Process string        // the process's name
	At      time.Duration // when it is killed or hung, from the start
	Hang    bool          // it hangs rather than dies
	Until   time.Duration // when it is restarted or reconnected
}

// Plan draws the faults of a run of the given duration, sorted by At then
// Operator. Each operator draws from its own stream, seeded from Seed and a
// hash of its name, so adding or removing an operator leaves the others'
// faults alone. An operator's faults never overlap: its next uptime starts at
// Until. c must be valid, as Parse leaves it.
func (c Chaos) Plan(operators []string, duration time.Duration) []Fault {
	var faults []Fault
	spread := int64(c.Downtime.Max.Duration - c.Downtime.Min.Duration)
	for _, name := range operators {
		h := fnv.New64a()
		h.Write([]byte(name))
		r := rand.New(rand.NewPCG(c.Seed, h.Sum64()))
		for t := time.Duration(0); ; {
			// Compare in float64: a long uptime would overflow a Duration.
			up := r.ExpFloat64() * float64(c.MeanUptime.Duration)
			if up >= float64(duration-t) {
				break
			}
			// On whole seconds, as the API server keeps times, so that
			// evidence reads cleanly: strictly after the last restart, and
			// down for whole seconds (from a whole-second minimum).
			at := t + time.Duration(math.Floor(up/float64(time.Second))+1)*time.Second
			down := c.Downtime.Min.Duration + time.Duration(r.Int64N(spread/int64(time.Second)+1))*time.Second
			faults = append(faults, Fault{Process: name, At: at, Hang: r.Float64() < c.Hang, Until: at + down})
			t = at + down
		}
	}
	slices.SortFunc(faults, func(a, b Fault) int {
		return cmp.Or(cmp.Compare(a.At, b.At), strings.Compare(a.Process, b.Process))
	})
	return faults
}
