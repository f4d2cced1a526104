package staticpod

import (
	"testing"
	"time"

	"github.com/opcert/opcert/conformance/staticpod/contract"
)

// The startup-monitor counts the start attempts of its revision's latest
// run: the lines of that revision after the last line of another.
func TestStartAttempts(t *testing.T) {
	log := []byte(`2026-01-01T00:00:00Z kube-apiserver revision 2 start 1
2026-01-01T00:01:00Z kube-apiserver revision 3 start 1
2026-01-01T00:01:11Z kube-apiserver revision 3 start 2
2026-01-01T00:06:00Z kube-apiserver revision 2 start 1
2026-01-01T00:16:00Z kube-apiserver revision 3 start 1
`)
	for _, c := range []struct {
		revision, want int
	}{{3, 1}, {2, 0}, {4, 0}} {
		if got := startAttempts(log, c.revision); got != c.want {
			t.Errorf("revision %d: %d attempts, want %d", c.revision, got, c.want)
		}
	}
	if got := startAttempts(nil, 3); got != 0 {
		t.Errorf("no log: %d attempts", got)
	}
}

// A manifest write's Detail is the timeline contract: the revision, then
// the fallback annotations present, the message last.
func TestManifestDetail(t *testing.T) {
	ann := map[string]string{
		contract.AnnotationFallbackMessage:     "Revision 3 did not become ready within 5m0s: /readyz is not ok",
		contract.AnnotationFallbackReason:      "NotReady",
		contract.AnnotationFallbackForRevision: "3",
	}
	for _, c := range []struct {
		ann  map[string]string
		want string
	}{
		{nil, "revision=2"},
		{ann, "revision=2 fallback-for-revision=3 fallback-reason=NotReady fallback-message=Revision 3 did not become ready within 5m0s: /readyz is not ok"},
	} {
		if got := manifestDetail(2, c.ann); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}

// A fallback manifest is the revision's manifest with the annotations
// added; the kubelet and the monitor read its revision back.
func TestManifests(t *testing.T) {
	m := operandManifest(4, "healthy")
	if r := revisionOf(m); r != 4 {
		t.Fatalf("revision %d, want 4", r)
	}
	fb, err := annotate(m, map[string]string{contract.AnnotationFallbackReason: "NotReady"})
	if err != nil {
		t.Fatal(err)
	}
	pod, err := parsePod(fb)
	if err != nil {
		t.Fatal(err)
	}
	if pod.Annotations[contract.AnnotationFallbackReason] != "NotReady" || annotatedRevision(pod.Annotations) != 4 {
		t.Errorf("annotations %v", pod.Annotations)
	}
	mirror, err := mirrorPod("master-0", fb)
	if err != nil {
		t.Fatal(err)
	}
	if mirror.Name != "kube-apiserver-master-0" || mirror.Namespace != mirrorNamespace || mirror.Spec.NodeName != "master-0" || mirror.Annotations[annotationMirror] == "" {
		t.Errorf("mirror pod %s/%s on %q, annotations %v", mirror.Namespace, mirror.Name, mirror.Spec.NodeName, mirror.Annotations)
	}
	if revisionOf([]byte("not: [a pod")) != 0 {
		t.Error("an unreadable manifest has a revision")
	}
	if r := revisionOf(monitorManifest(7, 5*time.Minute)); r != 7 {
		t.Errorf("monitor manifest revision %d, want 7", r)
	}
}
