package staticpod

import (
	"bufio"
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/opcert/opcert/conformance/staticpod/contract"
)

// The operand, its namespace and its pods, as the seed and OpenShift name
// them.
const (
	operandName     = "kube-apiserver"
	mirrorNamespace = "openshift-kube-apiserver"
	mirrorPrefix    = operandName + "-"
	monitorPodName  = operandName + "-startup-monitor"
	// revisionAnnotation is the manifests' and mirror pods' revision.
	revisionAnnotation = "revision"
	// The kubelet's mirror pod annotations (k8s.io/kubernetes
	// pkg/kubelet/types): a pod carrying config.mirror is a mirror pod, which
	// the API server's ServiceAccount admission leaves alone.
	annotationMirror = "kubernetes.io/config.mirror"
	annotationHash   = "kubernetes.io/config.hash"
	annotationSource = "kubernetes.io/config.source"
)

// mirrorName is the mirror pod of the operand on a node.
func mirrorName(node string) string { return mirrorPrefix + node }

// operandManifest is revision's pod manifest as the operator renders it.
func operandManifest(revision int, model string) []byte {
	rev := strconv.Itoa(revision)
	pod := corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: operandName, Namespace: mirrorNamespace,
			Labels:      map[string]string{"app": "openshift-kube-apiserver", "apiserver": "true", revisionAnnotation: rev},
			Annotations: map[string]string{revisionAnnotation: rev}},
		Spec: corev1.PodSpec{
			HostNetwork: true,
			Containers: []corev1.Container{{
				Name: operandName, Image: "quay.io/openshift/origin-hyperkube:latest",
				Command: []string{"hyperkube", "kube-apiserver"},
				Args: []string{"--openshift-config=/etc/kubernetes/static-pod-resources/configmaps/config/config.yaml",
					"--termination-log-file=/var/log/kube-apiserver/termination.log",
					"--simulated-behaviour=" + model},
				Ports: []corev1.ContainerPort{{Name: "https", ContainerPort: 6443, HostPort: 6443}},
			}},
		},
	}
	return marshal(&pod)
}

// monitorManifest is revision's startup-monitor pod manifest.
func monitorManifest(revision int, timeout time.Duration) []byte {
	rev := strconv.Itoa(revision)
	pod := corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: monitorPodName, Namespace: mirrorNamespace,
			Labels:      map[string]string{"app": "kube-apiserver-startup-monitor", revisionAnnotation: rev},
			Annotations: map[string]string{revisionAnnotation: rev}},
		Spec: corev1.PodSpec{
			HostNetwork: true,
			Containers: []corev1.Container{{
				Name: "startup-monitor", Image: "quay.io/openshift/origin-cluster-kube-apiserver-operator:latest",
				Command: []string{"cluster-kube-apiserver-operator", "startup-monitor"},
				Args:    []string{"--revision=" + rev, fmt.Sprintf("--fallback-timeout-duration=%ds", int(timeout.Seconds())), "--manifests-dir=/etc/kubernetes/manifests"},
			}},
		},
	}
	return marshal(&pod)
}

// configFile is a revision's configmap "config" as the installer copies it.
func configFile(revision int, model string) []byte {
	return fmt.Appendf(nil, "# revision %d\napiVersion: kubecontrolplane.config.openshift.io/v1\nkind: KubeAPIServerConfig\nsimulatedBehaviour: %s\n", revision, model)
}

func marshal(pod *corev1.Pod) []byte {
	data, err := yaml.Marshal(pod)
	if err != nil {
		panic(err) // a Pod always marshals
	}
	return data
}

// parsePod reads a pod manifest.
func parsePod(data []byte) (*corev1.Pod, error) {
	pod := &corev1.Pod{}
	if err := yaml.UnmarshalStrict(data, pod); err != nil {
		return nil, err
	}
	return pod, nil
}

// revisionOf is a manifest's revision annotation, 0 if it has none or it
// cannot be read.
func revisionOf(data []byte) int {
	pod, err := parsePod(data)
	if err != nil {
		return 0
	}
	return annotatedRevision(pod.Annotations)
}

func annotatedRevision(ann map[string]string) int {
	r, err := strconv.Atoi(ann[revisionAnnotation])
	if err != nil || r < 0 {
		return 0
	}
	return r
}

// annotate adds annotations to a manifest (a fallback's, 003 §Proposal
// step 1).
func annotate(data []byte, ann map[string]string) ([]byte, error) {
	if len(ann) == 0 {
		return data, nil
	}
	pod, err := parsePod(data)
	if err != nil {
		return nil, err
	}
	if pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	maps.Copy(pod.Annotations, ann)
	return marshal(pod), nil
}

// manifestDetail is a manifest write's Detail on the timeline (the
// contract the rules read): "revision=<N>", then the fallback annotations
// present, the message last.
func manifestDetail(revision int, ann map[string]string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "revision=%d", revision)
	for _, a := range []struct{ key, name string }{
		{contract.AnnotationFallbackForRevision, "fallback-for-revision"},
		{contract.AnnotationFallbackReason, "fallback-reason"},
		{contract.AnnotationFallbackMessage, "fallback-message"},
	} {
		if v, ok := ann[a.key]; ok {
			fmt.Fprintf(&b, " %s=%s", a.name, v)
		}
	}
	return b.String()
}

// startAttempts counts the start-up attempts of revision's latest run in
// a termination.log: the lines of that revision after the last line of any
// other (a fallback's operand, or the revision before, writes its own).
func startAttempts(log []byte, revision int) int {
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(log))
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	n := 0
	for _, l := range slices.Backward(lines) {
		if logRevision(l) != revision {
			break
		}
		n++
	}
	return n
}

// terminationMessage is the termination message revision's latest start
// wrote to a termination.log: its last line's text after the first ": "
// ("<time> <operand> revision <N> start <k>: <message>"), "" if none.
func terminationMessage(log []byte, revision int) string {
	lines := strings.Split(strings.TrimSuffix(string(log), "\n"), "\n")
	for _, l := range slices.Backward(lines) {
		if logRevision(l) == revision {
			_, msg, _ := strings.Cut(l, ": ")
			return msg
		}
	}
	return ""
}

// logRevision reads "<time> <operand> revision <N> start <k>".
func logRevision(line string) int {
	f := strings.Fields(line)
	for i := 0; i+1 < len(f); i++ {
		if f[i] == "revision" {
			r, _ := strconv.Atoi(f[i+1])
			return r
		}
	}
	return -1
}

// revisionDirRevision reads "kube-apiserver-pod-<N>", a resource
// directory's name.
func revisionDirRevision(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, operandName+"-pod-")
	if !ok {
		return 0, false
	}
	r, err := strconv.Atoi(rest)
	return r, err == nil && r > 0
}
