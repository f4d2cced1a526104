package timeline

// State is the condition state of every object, rebuilt by replaying events.
// Rules use it to know what an object looked like just before a write.
type State map[ObjectRef]map[string]Condition

// Apply moves the state past one event.
func (s State) Apply(e Event) {
	if !e.IsWrite() {
		return
	}
	if e.Verb == VerbDelete {
		delete(s, e.Object)
		return
	}
	s[e.Object] = e.ApplyConditions(s[e.Object])
}

// ApplyConditions moves conds, by type, past the event's condition
// changes, in place (a new map for nil), and returns it: a condition set
// or changed is there as the event left it, one removed is gone.
func (e Event) ApplyConditions(conds map[string]Condition) map[string]Condition {
	if conds == nil {
		conds = map[string]Condition{}
	}
	for _, c := range e.Conditions {
		if c.After == nil {
			delete(conds, c.Type)
			continue
		}
		conds[c.Type] = *c.After
	}
	return conds
}

// Diff lists the conditions that differ between before and after, in the
// order of after's types followed by removed types.
func Diff(before, after []Condition) []ConditionChange {
	old := map[string]Condition{}
	for _, c := range before {
		old[c.Type] = c
	}
	var out []ConditionChange
	seen := map[string]bool{}
	for _, c := range after {
		seen[c.Type] = true
		b, ok := old[c.Type]
		if ok && b.Same(c) {
			continue
		}
		a := c
		ch := ConditionChange{Type: c.Type, After: &a}
		if ok {
			ch.Before = &b
		}
		out = append(out, ch)
	}
	for _, c := range before {
		if !seen[c.Type] {
			b := c
			out = append(out, ConditionChange{Type: c.Type, Before: &b})
		}
	}
	return out
}

// Same tells whether two conditions are identical, comparing times as instants.
func (c Condition) Same(o Condition) bool {
	return c.Type == o.Type && c.Status == o.Status && c.Reason == o.Reason &&
		c.Message == o.Message && c.LastTransitionTime.Equal(o.LastTransitionTime)
}
