package conformance

// fakeScalable is a mechanism of a test that can scale its times, scaled.
type fakeScalable struct {
	Declared
	scaled func(float64) Mechanism
}

func (f fakeScalable) Scaled(scale float64) Mechanism { return f.scaled(scale) }
