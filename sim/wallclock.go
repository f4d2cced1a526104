package sim

import (
	"slices"
	"sync"
	"time"
)

// meter times the run's API calls in wall time. These figures say how far a
// run is from its API floor (calls x median latency); wall time is measured
// here and never used to decide anything.
type meter struct {
	mu      sync.Mutex
	samples []time.Duration
}

func (m *meter) time(call func() error) error {
	start := time.Now()
	err := call()
	d := time.Since(start)
	m.mu.Lock()
	m.samples = append(m.samples, d)
	m.mu.Unlock()
	return err
}

// APICalls returns how many calls the run's actors made to the API server
// and their median latency.
func (s *Scheduler) APICalls() (int, time.Duration) {
	m := &s.meter
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.samples) == 0 {
		return 0, 0
	}
	sorted := slices.Clone(m.samples)
	slices.Sort(sorted)
	return len(sorted), sorted[len(sorted)/2]
}
