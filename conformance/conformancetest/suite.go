package conformancetest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/scenarios"
	"github.com/opcert/opcert/sim/timeline"
)

// Suite is what every mechanism's envtest suite checks, written once: the
// reference passes every built-in, on its golden timeline where the test
// package keeps them (testdata/golden), and between them the built-ins
// judge every rule; every broken subject (Role.Mutant) fails a rule in a
// built-in, and every rule is failed by one; every faithful variant
// (Subject.Faithful) fails no rule in any built-in. Declare it in the test
// package (var _ = Suite{...}.Describe()); its specs run with the
// package's Ginkgo suite, in virtual time.
type Suite struct {
	// Mechanism is a registered mechanism (conformance.Register), built
	// with its flags' defaults.
	Mechanism string
	// API is the client of the package's API server, asked for when the
	// specs run (Main starts the server after the specs are declared).
	API func() client.Client
	// Prefix gives each run its own object names on the shared server.
	Prefix func() string
	// Broken names, per broken subject, a built-in in which it fails a
	// rule (a Style rule warns); a subject may be named more than once.
	Broken []Broken
	// Costly are built-ins the faithful variants are not played on here,
	// for their wall time (the self-test plays them).
	Costly []string
}

// Broken is a broken subject of a role failing a rule in a built-in.
type Broken struct {
	// Role and Subject name the broken subject, Scenario the built-in it fails and Rule the rule's ID.
	Role, Subject, Scenario, Rule string
}

// Mechanism is the registered mechanism name, built with its flags'
// defaults.
func Mechanism(name string) conformance.Mechanism {
	ms, err := conformance.Defaults()
	if err != nil {
		panic(err) // the defaults of a registered mechanism are valid
	}
	for _, m := range ms {
		if m.Name() == name {
			return m
		}
	}
	panic(fmt.Sprintf("conformancetest: no mechanism %q is registered (import its package)", name))
}

// Play plays a built-in of the suite's mechanism with the reference in
// every role but those chosen, and fails the spec on a run that stopped.
func (s Suite) Play(scenario string, choices map[string]string) (reports.Run, *timeline.Timeline) {
	ginkgo.GinkgoHelper()
	sc, err := scenarios.BuiltinNamed(scenario)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	m := Mechanism(s.Mechanism)
	cast, err := conformance.Subjects(m, choices)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	run, tl := conformance.Play(context.Background(), s.API(), m, sc, cast, conformance.Options{Prefix: s.Prefix()})
	gomega.Expect(run.Error).To(gomega.BeEmpty())
	return run, tl
}

// Describe declares the suite's specs.
func (s Suite) Describe() bool {
	m := Mechanism(s.Mechanism)
	builtins := Builtins(s.Mechanism)
	if len(builtins) == 0 {
		panic("conformancetest: mechanism " + s.Mechanism + " has no built-in scenario")
	}
	ginkgo.Describe(s.Mechanism+": the reference", ginkgo.Ordered, func() { s.reference(m, builtins) })
	ginkgo.Describe(s.Mechanism+": the broken subjects", func() { s.broken(m) })
	ginkgo.Describe(s.Mechanism+": the faithful variants", func() { s.faithful(m, builtins) })
	return true
}

func (s Suite) reference(m conformance.Mechanism, builtins []*scenarios.Scenario) {
	_, err := os.Stat(filepath.Join("testdata", "golden"))
	golden := err == nil
	judged := map[string]bool{} // the rules some built-in judged and passed
	for _, sc := range builtins {
		ginkgo.It("passes every rule and expectation in "+sc.Name+", on its golden timeline", func() {
			run, tl := s.Play(sc.Name, nil)
			if golden {
				gomega.Expect(Golden(sc.Name, tl)).To(gomega.Succeed())
			}
			for _, c := range run.Cases {
				gomega.Expect(c.Status).To(gomega.Or(gomega.Equal(reports.Pass), gomega.Equal(reports.Skip)), "%s: %s %s", c.Rule, c.Status, c.Message)
				if c.Status == reports.Pass {
					judged[c.Rule] = true
				}
			}
			if slices.ContainsFunc(sc.Steps, func(st scenarios.Step) bool { return st.Expect != nil }) {
				c, ok := Case(run, "EXPECT")
				gomega.Expect(ok && c.Status == reports.Pass).To(gomega.BeTrue(), "the expectations of %s: %s", sc.Name, c.Message)
			}
		})
	}
	ginkgo.It("has judged every rule somewhere in the built-ins", func() {
		for _, r := range m.Rules() {
			gomega.Expect(judged).To(gomega.HaveKey(r.ID), "no built-in scenario judges %s", r.ID)
		}
	})
}

func (s Suite) broken(m conformance.Mechanism) {
	rules := map[string]judge.Rule{}
	for _, r := range m.Rules() {
		rules[r.ID] = r
	}
	for _, tc := range s.Broken {
		want := reports.Fail
		if rules[tc.Rule].Style {
			want = reports.Warn // a convention: a warning unless --strict
		}
		ginkgo.It(fmt.Sprintf("%s %s: %s %s in %s", tc.Role, tc.Subject, tc.Rule, want, tc.Scenario), func() {
			gomega.Expect(rules).To(gomega.HaveKey(tc.Rule))
			run, _ := s.Play(tc.Scenario, map[string]string{tc.Role: tc.Subject})
			c, ok := Case(run, tc.Rule)
			gomega.Expect(ok).To(gomega.BeTrue(), "no case %s", tc.Rule)
			gomega.Expect(c.Status).To(gomega.Equal(want), c.Message)
			gomega.Expect(c.Evidence).NotTo(gomega.BeEmpty())
		})
	}
	ginkgo.It("break every rule between them", func() {
		shown := map[string]bool{}
		for _, tc := range s.Broken {
			shown[tc.Rule] = true
		}
		for _, r := range m.Rules() {
			gomega.Expect(shown).To(gomega.HaveKey(r.ID), "no broken subject is shown failing %s", r.ID)
		}
	})
	ginkgo.It("are each shown failing a rule", func() {
		for _, r := range m.Roles() {
			for _, sub := range r.Subjects {
				listed := slices.ContainsFunc(s.Broken, func(b Broken) bool { return b.Role == r.Name && b.Subject == sub.Name })
				gomega.Expect(listed).To(gomega.Equal(r.Mutant(sub)), "%s %s: a broken subject is listed in Suite.Broken, and only a broken one", r.Name, sub.Name)
			}
		}
	})
}

func (s Suite) faithful(m conformance.Mechanism, builtins []*scenarios.Scenario) {
	for _, r := range m.Roles() {
		for _, sub := range r.Subjects {
			if !sub.Faithful {
				continue
			}
			for _, sc := range builtins {
				if slices.Contains(s.Costly, sc.Name) {
					continue
				}
				// A Style rule may warn, and the built-ins' expectations,
				// written for the reference's texts and timing, are not
				// theirs to meet.
				ginkgo.It(fmt.Sprintf("%s %s fails no rule in %s", r.Name, sub.Name, sc.Name), func() {
					run, _ := s.Play(sc.Name, map[string]string{r.Name: sub.Name})
					judged := 0
					for _, c := range run.Cases {
						if c.Rule == "EXPECT" {
							continue
						}
						gomega.Expect(c.Status).NotTo(gomega.Equal(reports.Fail), "%s: %s", c.Rule, c.Message)
						if c.Status == reports.Pass {
							judged++
						}
					}
					gomega.Expect(judged).To(gomega.BeNumerically(">", 0), "no rule judged %s", sub.Name)
				})
			}
		}
	}
}
