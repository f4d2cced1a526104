package rules

import "time"

// Config holds what the OLM rules judge against.
type Config struct {
	// Reading is how an Upgradeable expression is read (DESIGN 002):
	// ReadingHolds (the default; "" means it) or ReadingBlocks.
	Reading string
	// Tolerance is how long a subject may take to reflect a change of what
	// it reads: zero in virtual time, where it reflects it at the same
	// instant; a real-time run or a recording sets it.
	Tolerance time.Duration
}

// DefaultConfig is DESIGN 002's reading, in virtual time.
func DefaultConfig() Config { return Config{Reading: ReadingHolds} }

// blocking tells whether a CR whose Upgradeable expression evaluates to v
// blocks the upgrade: False under the reading "holds", True under
// "blocks"; Unknown never does (002 §Test Plan, "cannot be calculated").
func (c Config) blocking(v truth) bool {
	if c.Reading == ReadingBlocks {
		return v == tTrue
	}
	return v == tFalse
}
