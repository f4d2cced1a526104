package rules

import "time"

// Config holds what the CO rules judge against.
type Config struct {
	// Tolerance is the slack on instants: zero in virtual time, where
	// writes and their times are exact; a real-time run or a recording
	// sets it (its lag, the API server's second-truncated times).
	Tolerance time.Duration
}

// DefaultConfig is the seed's, exact.
func DefaultConfig() Config { return Config{} }
