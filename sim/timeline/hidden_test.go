package timeline

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestWriteJSONLHidesNothingRaw: a message holding ESC, a C1 control and a
// bidi override is written with each as a \u escape, and reads back the
// same.
func TestWriteJSONLHidesNothingRaw(t *testing.T) {
	msg := "esc\x1b[2J c1\u009b31m bidi\u202eevil del\x7f"
	var tl Timeline
	tl.Append(Event{Time: time.Unix(0, 0).UTC(), Actor: "op\u202e", Verb: VerbUpdateStatus, Object: ObjectRef{Kind: "K", Name: "n"},
		Conditions: []ConditionChange{{Type: "Ready", After: &Condition{Status: "True", Message: msg}}}})
	var b bytes.Buffer
	if err := tl.WriteJSONL(&b); err != nil {
		t.Fatal(err)
	}
	for _, raw := range []string{"\x1b", "\u009b", "\u202e", "\x7f"} {
		if strings.Contains(b.String(), raw) {
			t.Errorf("raw %q in %s", raw, b.String())
		}
	}
	back, err := ReadJSONL(&b)
	if err != nil {
		t.Fatal(err)
	}
	if e := back.Events(); len(e) != 1 || e[0].Actor != "op\u202e" || e[0].Conditions[0].After.Message != msg {
		t.Errorf("read back %+v", e)
	}
}
