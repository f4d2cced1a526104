package conformance

import (
	"fmt"
	"slices"
)

// Takes tells whether the role takes a team's subject in form f.
func (r *Role) Takes(f Form) bool { return slices.Contains(r.Forms, f) }

// Except is r taking every form but those cannot gives its reason for
// (Role.Forms from Role.Cannot), so that a role's forms are said once.
func (r Role) Except(cannot map[Form]string) Role {
	r.Forms, r.Cannot = nil, cannot
	for _, f := range AllForms {
		if _, ok := cannot[f]; !ok {
			r.Forms = append(r.Forms, f)
		}
	}
	return r
}

// NoForm is a role's Cannot when it takes no team's subject at all, for
// one reason (the platform's own component, which opcert plays).
func NoForm(why string) map[Form]string {
	out := make(map[Form]string, len(AllForms))
	for _, f := range AllForms {
		out[f] = why
	}
	return out
}

// FormOf is the form of a team's subject (a Reconciler or a Core, a
// Process, a Deployment), or false for a subject of opcert's own.
func FormOf(s Subject) (Form, bool) {
	switch s.Impl.(type) {
	case Reconciler, Core:
		return FormLibrary, true
	case Process:
		return FormProcess, true
	case Deployment:
		return FormCluster, true
	}
	return "", false
}

// Refuses says why the cast cannot be played: a team's subject in a form
// its role does not take (Role.Forms), with the role's reason. Play asks
// it before anything starts, so that a mechanism's Build never meets a
// form it was not written for; nil when every subject's form is taken.
func Refuses(m Mechanism, cast Cast) error {
	for _, r := range m.Roles() {
		s, ok := cast[r.Name]
		if !ok {
			continue
		}
		if f, team := FormOf(s); team && !r.Takes(f) {
			return refusal(m, &r, f)
		}
	}
	return nil
}

// Refusal says why the mechanism's role does not take a team's subject in
// form f, with the role's reason (Role.Cannot); nil if it takes it, or
// has no such role (Subjects says so).
func Refusal(m Mechanism, role string, f Form) error {
	r := findRole(m, role)
	if r == nil || r.Takes(f) {
		return nil
	}
	return refusal(m, r, f)
}

// formNames are the forms as a refusal names them.
var formNames = map[Form]string{
	FormLibrary: "a team's reconciler (library mode)",
	FormProcess: "an executable (process mode)",
	FormCluster: "a Deployment (cluster mode)",
}

// refusal is the error of role r refusing a subject in form f.
func refusal(m Mechanism, r *Role, f Form) error {
	why := r.Cannot[f]
	if why == "" {
		why = "the mechanism gives no reason"
	}
	return fmt.Errorf("role %s.%s cannot be played by %s: %s", m.Name(), r.Name, formNames[f], why)
}
