package node

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"time"
)

// Seed 003 §Readiness counts start-up attempts in termination.log: synced
// at each of its next changes, a crash-looping revision writes one line
// per start, at the instant of the start, as the operand.
func TestSyncLogsEachStart(t *testing.T) {
	n, clk, rec := newNode(t)
	h := n.As(kas)
	op, err := NewOperand(kas, 4, Model{Kind: BadConfig}, epoch)
	must(t, err)
	for {
		next, err := op.Sync(h)
		must(t, err)
		if next.IsZero() || next.After(epoch.Add(11*time.Minute)) {
			break
		}
		clk.SetTime(next)
	}
	log, err := h.ReadFile(TerminationLogPath(kas))
	must(t, err)
	equalLines(t, "termination.log", strings.Split(strings.TrimSuffix(string(log), "\n"), "\n"), []string{
		"2026-01-01T00:00:00Z kube-apiserver revision 4 start 1: Error: unknown flag: --foo",
		"2026-01-01T00:00:11Z kube-apiserver revision 4 start 2: Error: unknown flag: --foo",
		"2026-01-01T00:00:32Z kube-apiserver revision 4 start 3: Error: unknown flag: --foo",
		"2026-01-01T00:01:13Z kube-apiserver revision 4 start 4: Error: unknown flag: --foo",
		"2026-01-01T00:02:34Z kube-apiserver revision 4 start 5: Error: unknown flag: --foo",
		"2026-01-01T00:05:15Z kube-apiserver revision 4 start 6: Error: unknown flag: --foo",
		"2026-01-01T00:10:16Z kube-apiserver revision 4 start 7: Error: unknown flag: --foo",
	})
	equalLines(t, "events", rec.lines(), []string{
		"+0s kube-apiserver write /var/log/kube-apiserver/termination.log (append 83 bytes: 2026-01-01T00:00:00Z kube-apiserver revision 4 start 1: Error: unknown flag: --foo)",
		"+11s kube-apiserver write /var/log/kube-apiserver/termination.log (append 83 bytes: 2026-01-01T00:00:11Z kube-apiserver revision 4 start 2: Error: unknown flag: --foo)",
		"+32s kube-apiserver write /var/log/kube-apiserver/termination.log (append 83 bytes: 2026-01-01T00:00:32Z kube-apiserver revision 4 start 3: Error: unknown flag: --foo)",
		"+1m13s kube-apiserver write /var/log/kube-apiserver/termination.log (append 83 bytes: 2026-01-01T00:01:13Z kube-apiserver revision 4 start 4: Error: unknown flag: --foo)",
		"+2m34s kube-apiserver write /var/log/kube-apiserver/termination.log (append 83 bytes: 2026-01-01T00:02:34Z kube-apiserver revision 4 start 5: Error: unknown flag: --foo)",
		"+5m15s kube-apiserver write /var/log/kube-apiserver/termination.log (append 83 bytes: 2026-01-01T00:05:15Z kube-apiserver revision 4 start 6: Error: unknown flag: --foo)",
		"+10m16s kube-apiserver write /var/log/kube-apiserver/termination.log (append 83 bytes: 2026-01-01T00:10:16Z kube-apiserver revision 4 start 7: Error: unknown flag: --foo)",
	})
}

// A sync that comes late writes every start it missed, at once; one after
// the clock was set back writes nothing again.
func TestSyncCatchesUp(t *testing.T) {
	n, clk, rec := newNode(t)
	h := n.As(kas)
	op, err := NewOperand(kas, 5, Model{Kind: PortWaitTimeout}, epoch)
	must(t, err)
	clk.SetTime(epoch.Add(time.Minute))
	next, err := op.Sync(h)
	must(t, err)
	if want := epoch.Add(100 * time.Second); !next.Equal(want) {
		t.Errorf("next = +%s, want +%s", next.Sub(epoch), want.Sub(epoch))
	}
	clk.SetTime(epoch)
	_, err = op.Sync(h)
	must(t, err)
	equalLines(t, "events", rec.lines(), []string{
		"+1m0s kube-apiserver write /var/log/kube-apiserver/termination.log (append 104 bytes: 2026-01-01T00:00:00Z kube-apiserver revision 5 start 1: timed out waiting for port :6443 to be released)",
		"+1m0s kube-apiserver write /var/log/kube-apiserver/termination.log (append 104 bytes: 2026-01-01T00:00:20Z kube-apiserver revision 5 start 2: timed out waiting for port :6443 to be released)",
		"+1m0s kube-apiserver write /var/log/kube-apiserver/termination.log (append 104 bytes: 2026-01-01T00:00:50Z kube-apiserver revision 5 start 3: timed out waiting for port :6443 to be released)",
	})
}

// Seed 003 §Readiness, NeverStartedUp: an invalid manifest never writes to
// termination.log, and needs no further sync.
func TestSyncNeverStarted(t *testing.T) {
	n, clk, rec := newNode(t)
	h := n.As(kas)
	op, err := NewOperand(kas, 6, Model{Kind: InvalidManifest}, epoch)
	must(t, err)
	clk.SetTime(epoch.Add(time.Hour))
	next, err := op.Sync(h)
	must(t, err)
	if !next.IsZero() {
		t.Errorf("next = +%s, want never", next.Sub(epoch))
	}
	if _, err := h.ReadFile(TerminationLogPath(kas)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("termination.log: %v, want none", err)
	}
	equalLines(t, "events", rec.lines(), nil)
}

func TestNewOperandValidates(t *testing.T) {
	if _, err := NewOperand(kas, 1, Model{Kind: "flaky"}, epoch); err == nil {
		t.Error("an unknown kind was accepted")
	}
}

// Seed 003 §User Stories 3: a model's own termination message replaces its
// kind's default on every line; a kind whose process never exits by itself
// writes its starts without one.
func TestSyncTerminationMessage(t *testing.T) {
	for _, tc := range []struct {
		m    Model
		want string
	}{
		{Model{Kind: BadConfig, Termination: "Error: invalid audit policy: no rules"},
			"2026-01-01T00:00:00Z kube-apiserver revision 7 start 1: Error: invalid audit policy: no rules"},
		{Model{Kind: NotReady}, "2026-01-01T00:00:00Z kube-apiserver revision 7 start 1"},
	} {
		n, _, rec := newNode(t)
		h := n.As(kas)
		op, err := NewOperand(kas, 7, tc.m, epoch)
		must(t, err)
		_, err = op.Sync(h)
		must(t, err)
		log, err := h.ReadFile(TerminationLogPath(kas))
		must(t, err)
		if string(log) != tc.want+"\n" {
			t.Errorf("%s: termination.log %q, want %q", tc.m.Kind, log, tc.want+"\n")
		}
		equalLines(t, "events", rec.lines(), []string{
			fmt.Sprintf("+0s kube-apiserver write /var/log/kube-apiserver/termination.log (append %d bytes: %s)", len(tc.want)+1, tc.want),
		})
		if got := op.Termination(); got != DefaultTermination[tc.m.Kind] && got != tc.m.Termination {
			t.Errorf("%s: Termination() = %q", tc.m.Kind, got)
		}
	}
}

func TestAppendLineRefusesTwoLines(t *testing.T) {
	n, _, rec := newNode(t)
	if err := n.As(kas).AppendLine(TerminationLogPath(kas), "a\nb"); err == nil {
		t.Error("two lines were appended as one")
	}
	equalLines(t, "events", rec.lines(), nil)
}
