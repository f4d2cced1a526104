package workload

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

func TestLife(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	readyAt := t0.Add(30 * time.Second)
	tests := []struct {
		name    string
		life    life
		now     time.Time
		stuck   bool
		phase   corev1.PodPhase
		ready   corev1.ConditionStatus
		next    time.Time
		readied bool
	}{
		{"new: Pending until its time", life{readyAt: readyAt}, t0, false, corev1.PodPending, corev1.ConditionFalse, readyAt, false},
		{"its time come: Running and Ready", life{readyAt: readyAt}, readyAt, false, corev1.PodRunning, corev1.ConditionTrue, time.Time{}, true},
		{"stuck: Running, never Ready", life{readyAt: readyAt}, readyAt, true, corev1.PodRunning, corev1.ConditionFalse, time.Time{}, false},
		{"stuck after it was ready: stays Ready", life{readyAt: readyAt, readied: true}, readyAt.Add(time.Hour), true,
			corev1.PodRunning, corev1.ConditionTrue, time.Time{}, true},
		{"recovered: Running while it gets ready", life{readyAt: readyAt, restarted: true}, t0, false,
			corev1.PodRunning, corev1.ConditionFalse, readyAt, false},
		{"failed", life{readyAt: readyAt, readied: true, fault: failed}, readyAt, false, corev1.PodFailed, corev1.ConditionFalse, time.Time{}, true},
		{"lost", life{readyAt: readyAt, fault: lost}, t0, false, corev1.PodUnknown, corev1.ConditionUnknown, time.Time{}, false},
	}
	for _, tt := range tests {
		l, st, next := tt.life.at(tt.now, tt.stuck, "c")
		if st.Phase != tt.phase || st.Ready != tt.ready || !next.Equal(tt.next) || l.readied != tt.readied {
			t.Errorf("%s: %s Ready=%s next %s readied %t, want %s Ready=%s next %s readied %t",
				tt.name, st.Phase, st.Ready, next, l.readied, tt.phase, tt.ready, tt.next, tt.readied)
		}
		if st.Ready != corev1.ConditionTrue && st.Reason == "" {
			t.Errorf("%s: Ready %s without a reason", tt.name, st.Ready)
		}
	}
}

// The hash of a template is the same whether empty parts are absent or
// empty (as the API server returns them) and whatever the server
// defaults, and moves with what the pods run.
func TestTemplateHash(t *testing.T) {
	base := corev1.PodTemplateSpec{}
	base.Labels = map[string]string{"app": "web", LabelVersion: "A"}
	base.Spec.Containers = []corev1.Container{{Name: "web", Image: "example.com/web:A"}}
	h := TemplateHash(base)
	same := base.DeepCopy()
	same.Annotations = map[string]string{}
	same.Spec.Containers[0].Args = []string{}
	same.Spec.Containers[0].TerminationMessagePath = "/dev/termination-log"
	same.Spec.RestartPolicy = corev1.RestartPolicyAlways
	if got := TemplateHash(*same); got != h {
		t.Errorf("hash of the defaulted template %s, want %s", got, h)
	}
	for name, change := range map[string]func(*corev1.PodTemplateSpec){
		"label":      func(p *corev1.PodTemplateSpec) { p.Labels[LabelVersion] = "B" },
		"annotation": func(p *corev1.PodTemplateSpec) { p.Annotations = map[string]string{"opcert.io/config": "2"} },
		"image":      func(p *corev1.PodTemplateSpec) { p.Spec.Containers[0].Image = "example.com/web:B" },
		"env":        func(p *corev1.PodTemplateSpec) { p.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "X", Value: "1"}} },
	} {
		p := base.DeepCopy()
		change(p)
		if TemplateHash(*p) == h {
			t.Errorf("a change of %s does not change the hash", name)
		}
	}
	if len(h) != 8 {
		t.Errorf("hash %q, want 8 hex digits", h)
	}
}
