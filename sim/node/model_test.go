package node

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// summary renders a state compactly: start attempts, process, pod,
// failing checks (pending post-start hooks counted, or named when one is
// left) and the next change relative to epoch.
func summary(s State) string {
	parts := []string{fmt.Sprintf("starts=%d", s.Starts)}
	if s.Running {
		parts = append(parts, "running")
	}
	if s.Listening {
		parts = append(parts, "listening")
	}
	if s.Pod.Exists {
		pod := fmt.Sprintf("pod=%s/%d", s.Pod.Phase, s.Pod.RestartCount)
		if s.Pod.Ready {
			pod += "/ready"
		}
		parts = append(parts, pod)
	} else {
		parts = append(parts, "no-pod")
	}
	var failing, pending []string
	for _, c := range s.Checks {
		switch name, hook := strings.CutPrefix(c.Name, "poststarthook/"); {
		case c.OK:
		case hook:
			pending = append(pending, name)
		default:
			failing = append(failing, c.Name)
		}
	}
	if len(failing) > 0 {
		parts = append(parts, "failing="+strings.Join(failing, ","))
	}
	switch len(pending) {
	case 0:
	case 1:
		parts = append(parts, "pending="+pending[0])
	default:
		parts = append(parts, fmt.Sprintf("pending=%d", len(pending)))
	}
	if s.Next.IsZero() {
		parts = append(parts, "next=never")
	} else {
		parts = append(parts, fmt.Sprintf("next=+%s", s.Next.Sub(epoch)))
	}
	return strings.Join(parts, " ")
}

// Seed 003 §Proposal lists how a new revision fails to start up; each
// model is checked at the instants around its transitions, with the
// manifest appearing at epoch.
func TestModels(t *testing.T) {
	type at struct {
		d    time.Duration
		want string
	}
	const ms = time.Millisecond
	for _, tc := range []struct {
		name  string
		model Model
		at    []at
	}{
		{"healthy, ready after 30s", Model{Kind: Healthy}, []at{
			{0, "starts=1 running listening pod=Running/0 pending=5 next=+30s"},
			{30*time.Second - ms, "starts=1 running listening pod=Running/0 pending=5 next=+30s"},
			{30 * time.Second, "starts=1 running listening pod=Running/0/ready next=never"},
			{24 * time.Hour, "starts=1 running listening pod=Running/0/ready next=never"},
		}},
		{"healthy, started 5s late, ready 10s after", Model{Kind: Healthy, StartDelay: 5 * time.Second, ReadyAfter: 10 * time.Second}, []at{
			{0, "starts=0 pod=Pending/0 next=+5s"},
			{5*time.Second - ms, "starts=0 pod=Pending/0 next=+5s"},
			{5 * time.Second, "starts=1 running listening pod=Running/0 pending=5 next=+15s"},
			{15 * time.Second, "starts=1 running listening pod=Running/0/ready next=never"},
		}},
		{"invalid manifest: never started, no pod", Model{Kind: InvalidManifest}, []at{
			{0, "starts=0 no-pod next=never"},
			{time.Hour, "starts=0 no-pod next=never"},
		}},
		// Starts at 0, 11, 32, 73, 154, 315, 616, 917s: each lives 1s, then
		// the kubelet waits 10s, 20s, 40s, 80s, 160s, then 5m (capped).
		{"bad config: crash loop with back-off", Model{Kind: BadConfig}, []at{
			{0, "starts=1 running pod=Running/0 next=+1s"},
			{time.Second - ms, "starts=1 running pod=Running/0 next=+1s"},
			{time.Second, "starts=1 pod=Running/0 next=+11s"},
			{11*time.Second - ms, "starts=1 pod=Running/0 next=+11s"},
			{11 * time.Second, "starts=2 running pod=Running/1 next=+12s"},
			{12 * time.Second, "starts=2 pod=Running/1 next=+32s"},
			{32 * time.Second, "starts=3 running pod=Running/2 next=+33s"},
			{33 * time.Second, "starts=3 pod=Running/2 next=+1m13s"},
			{74 * time.Second, "starts=4 pod=Running/3 next=+2m34s"},
			{155 * time.Second, "starts=5 pod=Running/4 next=+5m15s"},
			{316 * time.Second, "starts=6 pod=Running/5 next=+10m16s"},
			{617 * time.Second, "starts=7 pod=Running/6 next=+15m17s"},
			{917 * time.Second, "starts=8 running pod=Running/7 next=+15m18s"},
		}},
		{"port wait timeout: each start waits 10s, exits, restarts", Model{Kind: PortWaitTimeout}, []at{
			{0, "starts=1 running pod=Running/0 next=+10s"},
			{10*time.Second - ms, "starts=1 running pod=Running/0 next=+10s"},
			{10 * time.Second, "starts=1 pod=Running/0 next=+20s"},
			{20 * time.Second, "starts=2 running pod=Running/1 next=+30s"},
			{30 * time.Second, "starts=2 pod=Running/1 next=+50s"},
			{50 * time.Second, "starts=3 running pod=Running/2 next=+1m0s"},
		}},
		{"port wait timeout, 2m wait", Model{Kind: PortWaitTimeout, PortWait: 2 * time.Minute}, []at{
			{0, "starts=1 running pod=Running/0 next=+2m0s"},
			{2 * time.Minute, "starts=1 pod=Running/0 next=+2m10s"},
			{2*time.Minute + 10*time.Second, "starts=2 running pod=Running/1 next=+4m10s"},
			{5 * time.Minute, "starts=3 running pod=Running/2 next=+6m30s"},
		}},
		{"connection refused: runs, never listens", Model{Kind: ConnectionRefused}, []at{
			{0, "starts=1 running pod=Running/0 next=never"},
			{time.Hour, "starts=1 running pod=Running/0 next=never"},
		}},
		{"unhealthy: log check red", Model{Kind: Unhealthy}, []at{
			{0, "starts=1 running listening pod=Running/0 failing=log pending=5 next=+30s"},
			{30 * time.Second, "starts=1 running listening pod=Running/0 failing=log next=never"},
		}},
		{"not ready: one hook never finishes", Model{Kind: NotReady}, []at{
			{0, "starts=1 running listening pod=Running/0 pending=5 next=+30s"},
			{30 * time.Second, "starts=1 running listening pod=Running/0 pending=start-apiextensions-controllers next=never"},
		}},
		{"not ready on a hook of its own", Model{Kind: NotReady, Hook: "openshift.io-startinformers"}, []at{
			{0, "starts=1 running listening pod=Running/0 pending=6 next=+30s"},
			{30 * time.Second, "starts=1 running listening pod=Running/0 pending=openshift.io-startinformers next=never"},
		}},
		{"etcd hook stuck", Model{Kind: EtcdHookStuck}, []at{
			{0, "starts=1 running listening pod=Running/0 failing=etcd pending=5 next=+30s"},
			{30 * time.Second, "starts=1 running listening pod=Running/0 failing=etcd next=never"},
		}},
		{"etcd down for 2m, then back", Model{Kind: EtcdDownThenBack}, []at{
			{0, "starts=1 running listening pod=Running/0 failing=etcd pending=5 next=+30s"},
			{30 * time.Second, "starts=1 running listening pod=Running/0 failing=etcd next=+2m0s"},
			{2*time.Minute - ms, "starts=1 running listening pod=Running/0 failing=etcd next=+2m0s"},
			{2 * time.Minute, "starts=1 running listening pod=Running/0/ready next=never"},
		}},
		{"etcd down for 10s, back before the hooks finish", Model{Kind: EtcdDownThenBack, EtcdDownFor: 10 * time.Second}, []at{
			{0, "starts=1 running listening pod=Running/0 failing=etcd pending=5 next=+10s"},
			{10 * time.Second, "starts=1 running listening pod=Running/0 pending=5 next=+30s"},
			{30 * time.Second, "starts=1 running listening pod=Running/0/ready next=never"},
		}},
	} {
		for _, a := range tc.at {
			if got := summary(tc.model.At(epoch, epoch.Add(a.d))); got != a.want {
				t.Errorf("%s, at +%s:\n got %s\nwant %s", tc.name, a.d, got, a.want)
			}
		}
	}
}

// Next is exact: the state holds until it and changes at it, so a
// scheduler that jumps from Next to Next misses nothing.
func TestNextIsTheNextChange(t *testing.T) {
	for _, kind := range Kinds {
		m := Model{Kind: kind, StartDelay: 3 * time.Second}
		now := epoch
		for step := 0; step < 50; step++ {
			s := m.At(epoch, now)
			base := withoutNext(s)
			if s.Next.IsZero() {
				for _, later := range []time.Duration{time.Second, time.Minute, 24 * time.Hour} {
					if got := withoutNext(m.At(epoch, now.Add(later))); got != base {
						t.Errorf("%s: no next change after +%s, but at +%s: %s -> %s", kind, now.Sub(epoch), now.Add(later).Sub(epoch), base, got)
					}
				}
				break
			}
			if !s.Next.After(now) {
				t.Fatalf("%s at +%s: next %s is not later", kind, now.Sub(epoch), s.Next.Sub(epoch))
			}
			stride := max(s.Next.Sub(now)/7, time.Nanosecond)
			for t2 := now; t2.Before(s.Next); t2 = t2.Add(stride) {
				if got := m.At(epoch, t2); withoutNext(got) != base || !got.Next.Equal(s.Next) {
					t.Errorf("%s: changed at +%s before its next change +%s: %s -> %s", kind, t2.Sub(epoch), s.Next.Sub(epoch), summary(s), summary(got))
				}
			}
			if got := withoutNext(m.At(epoch, s.Next.Add(-time.Nanosecond))); got != base {
				t.Errorf("%s: changed just before +%s", kind, s.Next.Sub(epoch))
			}
			if got := withoutNext(m.At(epoch, s.Next)); got == base {
				t.Errorf("%s: nothing changed at next +%s: %s", kind, s.Next.Sub(epoch), got)
			}
			now = s.Next
		}
	}
}

func withoutNext(s State) string {
	s.Next = time.Time{}
	return summary(s)
}

func TestValidate(t *testing.T) {
	for _, m := range []Model{{Kind: "crashy"}, {}, {Kind: BadConfig, CrashAfter: -time.Second},
		{Kind: NotReady, Termination: "never exits"}, {Kind: InvalidManifest, Termination: "never starts"},
		{Kind: BadConfig, Termination: "two\nlines"}, {Kind: PortWaitTimeout, Termination: strings.Repeat("x", MaxTermination+1)}} {
		if err := m.Validate(); err == nil {
			t.Errorf("%+v: valid, want an error", m)
		}
	}
	for _, k := range Kinds {
		if err := (Model{Kind: k}).Validate(); err != nil {
			t.Errorf("%s: %v", k, err)
		}
	}
	if err := (Model{Kind: BadConfig, Termination: "Error: unknown flag: --bar"}).Validate(); err != nil {
		t.Errorf("a crash loop's own termination message: %v", err)
	}
}

// Every kind whose process exits by itself has a default termination
// message; no other kind has one.
func TestDefaultTermination(t *testing.T) {
	for _, k := range Kinds {
		_, exits := Model{Kind: k}.lifetime()
		if got := (Model{Kind: k}).withDefaults().Termination; (got != "") != exits {
			t.Errorf("%s: default termination message %q (exits by itself: %t)", k, got, exits)
		}
	}
}

func TestBackoff(t *testing.T) {
	want := []time.Duration{10 * time.Second, 20 * time.Second, 40 * time.Second, 80 * time.Second, 160 * time.Second, 5 * time.Minute, 5 * time.Minute}
	for i, w := range want {
		if got := backoff(i + 1); got != w {
			t.Errorf("backoff(%d) = %s, want %s", i+1, got, w)
		}
	}
	if got := backoff(1000); got != 5*time.Minute {
		t.Errorf("backoff(1000) = %s, want the 5m cap", got)
	}
}
