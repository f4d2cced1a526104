package conformance_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/conformancetest"
	"github.com/opcert/opcert/conformance/stale"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/scenarios"
	"github.com/opcert/opcert/sim/timeline"
)

// Expectations hold for any faithful subject (conformance/expect.go): a
// detector that acts a resync late meets them within the reaction bound,
// an operator's own texts are not held against it, and a state that never
// comes still fails.
var _ = Describe("scenario expectations", func() {
	const file = `name: expect-window
mechanism: stale
duration: 25m
operators:
  - name: etcd
    answerDelay: 2s
    conditions:
      - {type: Available, status: "True", reason: AsExpected, message: All is well}
  - name: dns
    answerDelay: 2s
    conditions:
      - {type: Available, status: "True", reason: AsExpected, message: All is well}
  - name: auth
    answerDelay: 2s
    conditions:
      - {type: Available, status: "True", reason: AsExpected, message: All is well}
steps:
  - at: 1m
    killOperator: etcd
  - at: 9m59s
    expect: {object: auth, condition: Available, messagePrefix: "Operator checking for stale status, the active operator will reset this message: "}
  - at: 10m1s
    expect: {object: etcd, condition: Available, messagePrefix: "Operator checking for stale status, the active operator will reset this message: "}
  - at: 12m
    expect: {object: dns, condition: Available, status: "True", message: All is well}
  - at: 12m
    expect: {object: dns, condition: Available, message: All is well}
  - at: 13m
    expect: {object: dns, condition: Available, status: "False"}
  - at: 20m1s
    expect: {object: etcd, condition: Available, status: Unknown}
`
	expects := func(choices map[string]string) (reports.Case, []timeline.Event) {
		GinkgoHelper()
		sc, err := scenarios.Parse("expect-window.yaml", []byte(file))
		Expect(err).NotTo(HaveOccurred())
		m := stale.Mechanism(stale.DefaultConfig())
		cast, err := conformance.Subjects(m, choices)
		Expect(err).NotTo(HaveOccurred())
		run, tl := conformance.Play(context.Background(), api.Client, m, sc, cast, conformance.Options{Prefix: prefix()})
		Expect(run.Error).To(BeEmpty())
		var out []timeline.Event
		for _, e := range tl.Events() {
			if e.Verb == timeline.VerbExpect {
				out = append(out, e)
			}
		}
		Expect(out).To(HaveLen(6))
		c, _ := conformancetest.Case(run, "EXPECT")
		return c, out
	}

	It("records the reference's at their steps and compares its texts", func() {
		c, evs := expects(nil)
		etcd, dns := on(evs, "etcd"), on(evs, "dns")
		Expect(etcd[0].Time).To(Equal(timeline.Epoch.Add(10*time.Minute + time.Second)))
		for _, e := range []timeline.Event{etcd[0], etcd[1], dns[0], dns[1]} {
			Expect(e.Detail).To(HaveSuffix("Available: as expected"))
		}
		Expect(dns[2].Failed).To(BeTrue())
		Expect(dns[2].Detail).To(ContainSubstring("status is True, want False"))
		Expect(dns[2].Time).To(Equal(timeline.Epoch.Add(13*time.Minute+30*time.Second)), "a failure is recorded when its window closes")
		Expect(c.Status).To(Equal(reports.Fail))
		Expect(c.Message).To(HavePrefix("1 of 6 expectations failed"))
		Expect(on(evs, "auth")[0].Detail).To(Equal("auth Available: as expected at +10m0s, 1s after the step"))
	})

	It("lets a faithful detector meet them late, within the reaction bound", func() {
		_, evs := expects(map[string]string{"detector": "own-reason"})
		etcd := on(evs, "etcd")
		Expect(etcd[1].Failed).To(BeFalse(), etcd[1].Detail)
		Expect(etcd[1].Detail).To(Equal("etcd Available: as expected at +20m10s, 9s after the step"), "its challenge came 5s late, its mark 10m after it")
		// Its challenge is its own text (STALE-003 judges it, not the scenario).
		Expect(etcd[0].Detail).To(HavePrefix("etcd Available: not compared: the subject chose its messagePrefix"))
	})

	It("leaves an operator's own texts to it, and says what it did not compare", func() {
		c, evs := expects(map[string]string{"operator": "type-prefixed"})
		dns := on(evs, "dns")
		Expect(dns[0].Failed).To(BeFalse(), dns[0].Detail)
		Expect(dns[0].Detail).To(Equal("dns Available: as expected (its status; the subject chose its message)"))
		Expect(dns[1].Failed).To(BeFalse(), dns[1].Detail)
		Expect(dns[1].Detail).To(Equal("dns Available: not compared: the subject chose its message"))
		Expect(dns[2].Failed).To(BeTrue())
		Expect(c.Message).To(HavePrefix("1 of 5 expectations failed"))
		Expect(c.Message).To(ContainSubstring("1 not compared"))
		// At its step auth's condition was its operator's, whose texts are
		// not compared: the step looks on, and meets the detector's
		// challenge in its window.
		Expect(on(evs, "auth")[0].Detail).To(Equal("auth Available: as expected at +10m0s, 1s after the step"))
	})
})

// on is the expect events of one object, in the order they were recorded.
func on(evs []timeline.Event, object string) []timeline.Event {
	var out []timeline.Event
	for _, e := range evs {
		if e.Object.Name == object {
			out = append(out, e)
		}
	}
	return out
}
