package apiserver

import "time"

// stopwatch measures wall time for the figures opcert reports (how long the
// API server took to start); nothing is decided on it.
func stopwatch() func() time.Duration {
	start := time.Now()
	return func() time.Duration { return time.Since(start) }
}
