package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/opcert/opcert/shard"
)

// The Kubernetes Indexed Job recipe (examples/sharding/indexed-job.yaml),
// as a team copies it.
const (
	indexedJobPath = "../../examples/sharding/indexed-job.yaml"
	// imageTarball is opcert's release image, as make release-check
	// builds it (hack/release image); hack/kind/e2e.sh builds it there
	// when it is missing or was built from another commit.
	imageTarball = "dist/opcert-image.tar"
	// kindNode is the one node of the kind cluster named opcert
	// (hack/kind/cluster.yaml), the node the recipe's volume is on.
	kindNode = "opcert-control-plane"
)

// recipeImageLine is where the recipe names its image, opcert:VERSION,
// which a team replaces with the tag of the image it loaded.
var recipeImageLine = regexp.MustCompile(`(?m)^(\s+image: )opcert:VERSION$`)

// recipe is what the test reads from the Indexed Job recipe: the Job and
// the node directory its volume is.
type recipe struct {
	text      string
	job       batchv1.Job
	volumeDir string
}

// readRecipe reads the recipe and checks what holds it together: an
// Indexed Job of as many pods at once as completions, and as many shards
// said to opcert; the image never pulled, run as its own non-root user;
// each pod's report directory named by its index, on the volume of the
// local PersistentVolume (whose directory the test makes on the node).
func readRecipe(t *testing.T) recipe {
	t.Helper()
	data, err := os.ReadFile(indexedJobPath)
	if err != nil {
		t.Fatal(err)
	}
	r := recipe{text: string(data)}
	var found []string
	for _, doc := range strings.Split(r.text, "\n---\n") {
		var head struct{ Kind string }
		if err := yaml.Unmarshal([]byte(doc), &head); err != nil {
			t.Fatalf("%s: %v", indexedJobPath, err)
		}
		found = append(found, head.Kind)
		switch head.Kind {
		case "Job":
			if err := yaml.UnmarshalStrict([]byte(doc), &r.job); err != nil {
				t.Fatalf("%s: the Job: %v", indexedJobPath, err)
			}
		case "PersistentVolume":
			var pv corev1.PersistentVolume
			if err := yaml.UnmarshalStrict([]byte(doc), &pv); err != nil {
				t.Fatalf("%s: the PersistentVolume: %v", indexedJobPath, err)
			}
			if pv.Spec.Local == nil {
				t.Fatalf("%s: the PersistentVolume is not a local one", indexedJobPath)
			}
			r.volumeDir = pv.Spec.Local.Path
		}
	}
	if !slices.Equal(found, []string{"Namespace", "PersistentVolume", "PersistentVolumeClaim", "Job"}) {
		t.Fatalf("%s holds %v, want a Namespace, a PersistentVolume, its claim and the Job", indexedJobPath, found)
	}
	if n := len(recipeImageLine.FindAllString(r.text, -1)); n != 1 {
		t.Fatalf("%s names the image opcert:VERSION %d times, want once: the one place a team puts its tag", indexedJobPath, n)
	}
	spec := r.job.Spec
	if spec.CompletionMode == nil || *spec.CompletionMode != batchv1.IndexedCompletion || spec.Completions == nil || spec.Parallelism == nil {
		t.Fatalf("the Job is not an Indexed Job with completions and parallelism: %+v", spec)
	}
	shards := *spec.Completions
	if *spec.Parallelism != shards || shards < 2 {
		t.Errorf("the Job's parallelism is %d for %d completions, want as many (at least 2): every shard at once", *spec.Parallelism, shards)
	}
	pod := spec.Template.Spec
	if len(pod.Containers) != 1 {
		t.Fatalf("the Job's pod has %d containers, want opcert's", len(pod.Containers))
	}
	c := pod.Containers[0]
	if c.ImagePullPolicy != corev1.PullNever {
		t.Errorf("the opcert container's imagePullPolicy is %q, want Never: the image is loaded, not pulled", c.ImagePullPolicy)
	}
	if sc := pod.SecurityContext; sc == nil || sc.RunAsUser == nil || *sc.RunAsUser != 65532 || sc.FSGroup == nil || *sc.FSGroup != 65532 {
		t.Errorf("the pod's securityContext is %+v, want the image's user 65532 as runAsUser and fsGroup (the volume writable by it)", pod.SecurityContext)
	}
	if !slices.ContainsFunc(c.Env, func(e corev1.EnvVar) bool { return e.Name == "OPCERT_SHARD_COUNT" && e.Value == fmt.Sprint(shards) }) {
		t.Errorf("the opcert container's env %v does not say OPCERT_SHARD_COUNT=%d, the Job's completions", c.Env, shards)
	}
	out := slices.Index(c.Args, "--out")
	if len(c.Args) == 0 || c.Args[0] != "selftest" || out < 0 || out+1 == len(c.Args) || !strings.HasSuffix(c.Args[out+1], "$(JOB_COMPLETION_INDEX)") {
		t.Fatalf("the opcert container's args %v: want selftest with --out ending in $(JOB_COMPLETION_INDEX)", c.Args)
	}
	mount := slices.IndexFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool { return strings.HasPrefix(c.Args[out+1], m.MountPath+"/") })
	if mount < 0 || r.volumeDir == "" {
		t.Fatalf("the report directory %s is on no volume of the container (%v) or the volume has no directory", c.Args[out+1], c.VolumeMounts)
	}
	return r
}

// TestIndexedJobRecipe holds the recipe together where there is no
// cluster (make test); TestIndexedJobOnKind runs it.
func TestIndexedJobRecipe(t *testing.T) {
	r := readRecipe(t)
	if *r.job.Spec.Completions != 2 {
		t.Errorf("the recipe's Job has %d completions; docs/guides/sharding.md and its figures say 2", *r.job.Spec.Completions)
	}
}

// TestIndexedJobOnKind runs the Indexed Job recipe for real on a kind
// cluster: opcert's release image loaded into the node, the recipe
// applied with only its image's tag replaced, each pod playing its shard
// of the self-test with the API server it starts inside; the shards'
// directories copied off the node, each a shard of its own index, then
// merged by opcert merge into a self-test that must pass (and that fails
// with a shard missing). No image may have been pulled.
//
// make e2e-kind runs it after TestNightlyOnKind (hack/kind/e2e.sh: the
// engine, the node image, opcert, kubectl and docker on PATH, and the
// image tarball in dist/); elsewhere it is skipped.
func TestIndexedJobOnKind(t *testing.T) {
	if os.Getenv("OPCERT_KIND_E2E") == "" {
		t.Skip("make e2e-kind runs it: it needs a container engine, opcert's kind node image (hack/kind) and its container image (make release-check)")
	}
	r := readRecipe(t)
	for _, tool := range []string{"opcert", "kubectl", "docker"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not on PATH: make e2e-kind puts it there", tool)
		}
	}
	tag := loadImage(t)
	defer func() {
		if _, err := runCommand(t, "opcert", "kind", "down", "--name", "opcert", "--kubeconfig", "kind.kubeconfig"); err != nil {
			t.Error(err)
		}
	}()
	if _, err := runCommand(t, "opcert", "kind", "up", "--name", "opcert", "--kubeconfig", "kind.kubeconfig", "--image", tag); err != nil {
		t.Fatal(err)
	}
	if _, err := runCommand(t, "docker", "exec", kindNode, "mkdir", "-p", r.volumeDir); err != nil {
		t.Fatal(err)
	}
	apply := exec.Command("kubectl", "--kubeconfig", "kind.kubeconfig", "apply", "-f", "-")
	apply.Stdin = strings.NewReader(recipeImageLine.ReplaceAllString(r.text, "${1}"+tag))
	if _, err := run(t, "kubectl apply -f "+indexedJobPath+" (image "+tag+")", apply); err != nil {
		t.Fatal(err)
	}
	waitForJob(t, r.job)

	results := filepath.Join(t.TempDir(), "results")
	if _, err := runCommand(t, "docker", "cp", kindNode+":"+r.volumeDir, results); err != nil {
		t.Fatal(err)
	}
	shards := int(*r.job.Spec.Completions)
	var dirs []string
	for i := range shards {
		dirs = append(dirs, filepath.Join(results, fmt.Sprintf("shard-%d", i)))
	}
	checkShards(t, dirs)

	merged := filepath.Join(t.TempDir(), "merged")
	if code, err := runCommand(t, "opcert", append(append([]string{"merge"}, dirs...), "--out", merged)...); code != 0 {
		t.Fatalf("opcert merge of the %d shards exited %d (%v), want 0: the merged self-test passes", shards, code, err)
	}
	var rep selftestReport
	data, err := os.ReadFile(filepath.Join(merged, "selftest.json"))
	if err == nil {
		err = json.Unmarshal(data, &rep)
	}
	if err == nil && rep.Matrix == nil {
		err = errors.New("no matrix")
	}
	if err != nil {
		t.Fatalf("the merged selftest.json: %v", err)
	}
	if !rep.Passed || !rep.Matrix.ok() || len(rep.Matrix.Mutants) == 0 || rep.Matrix.Caught != len(rep.Matrix.Mutants) {
		t.Errorf("the merged self-test: passed %v, matrix %+v; want passed, every mutant caught", rep.Passed, rep.Matrix)
	}
	t.Logf("merged: %d runs, %d API calls, %d mutants caught of %d, %d faithful variants", rep.Runs, rep.APICalls, rep.Matrix.Caught, len(rep.Matrix.Mutants), len(rep.Matrix.Faithful))
	// A shard left out is reported missing, never a pass.
	if code, _ := runCommand(t, "opcert", "merge", dirs[0], "--out", filepath.Join(t.TempDir(), "partial")); code != exitEnv {
		t.Errorf("opcert merge of shard 0 alone exited %d, want %d: a shard is missing", code, exitEnv)
	}
	noPulls(t)
}

// loadImage loads opcert's image tarball into the engine, checks it was
// built from this checkout, and returns its tag. Unless the engine held it
// already, the image is removed from the engine at the end of the test:
// opcert's engine keeps its images in opcert's cache, meant for the node
// image, not for every build of opcert's.
func loadImage(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat(filepath.Join(repoRoot, imageTarball)); err != nil {
		t.Fatalf("%v: make release-check builds the image, and so does make e2e-kind when it is missing", err)
	}
	had, err := exec.Command("docker", "images", "--format", "{{.Repository}}:{{.Tag}}").Output()
	if err != nil {
		t.Fatalf("listing the engine's images: %v", err)
	}
	out, err := exec.Command("docker", "load", "-i", filepath.Join(repoRoot, imageTarball)).Output()
	if err != nil {
		t.Fatalf("docker load -i %s: %v", imageTarball, err)
	}
	tag, ok := strings.CutPrefix(strings.TrimSpace(string(out)), "Loaded image: ")
	if !ok || strings.ContainsAny(tag, " \n") {
		t.Fatalf("docker load -i %s said %q, want one image loaded", imageTarball, out)
	}
	if !slices.Contains(strings.Fields(string(had)), tag) {
		t.Cleanup(func() {
			if err := exec.Command("docker", "rmi", tag).Run(); err != nil {
				t.Errorf("removing %s from the engine: %v", tag, err)
			}
		})
	}
	revision, err := exec.Command("docker", "image", "inspect", "-f", `{{index .Config.Labels "org.opencontainers.image.revision"}}`, tag).Output()
	if err != nil {
		t.Fatal(err)
	}
	head, err := exec.Command("git", "-C", repoRoot, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(bytes.TrimSpace(revision), bytes.TrimSpace(head)) {
		t.Fatalf("%s (%s) was built from commit %s, this checkout is at %s: make e2e-kind builds it again (or make release-check)", imageTarball, tag, bytes.TrimSpace(revision), bytes.TrimSpace(head))
	}
	return tag
}

// waitForJob waits up to 10 minutes for the Job to complete, and logs
// each pod's times from the Job's creation (the API server's, to the
// second): scheduled, its container started and finished.
func waitForJob(t *testing.T, job batchv1.Job) {
	t.Helper()
	kubectl := func(args ...string) []byte {
		t.Helper()
		out, err := exec.Command("kubectl", append([]string{"--kubeconfig", filepath.Join(repoRoot, "kind.kubeconfig"), "-n", job.Namespace}, args...)...).Output()
		if err != nil {
			t.Fatalf("kubectl %s: %v", strings.Join(args, " "), err)
		}
		return out
	}
	var done batchv1.JobConditionType
	var j batchv1.Job
	for deadline := time.Now().Add(10 * time.Minute); done == ""; time.Sleep(2 * time.Second) {
		if err := json.Unmarshal(kubectl("get", "job", job.Name, "-o", "json"), &j); err != nil {
			t.Fatal(err)
		}
		for _, c := range j.Status.Conditions {
			if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
				done = c.Type
			}
		}
		if done == "" && time.Now().After(deadline) {
			done = "not done after 10 minutes"
		}
	}
	var pods corev1.PodList
	if err := json.Unmarshal(kubectl("get", "pods", "-l", batchv1.JobNameLabel+"="+job.Name, "-o", "json"), &pods); err != nil {
		t.Fatal(err)
	}
	created := j.CreationTimestamp.Time
	for _, p := range pods.Items {
		index := p.Annotations[batchv1.JobCompletionIndexAnnotation]
		var scheduled time.Duration
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionTrue {
				scheduled = c.LastTransitionTime.Sub(created)
			}
		}
		for _, s := range p.Status.ContainerStatuses {
			if end := s.State.Terminated; end != nil {
				t.Logf("pod %s (index %s): exit %d; from the Job's creation, scheduled at %s, container from %s to %s (%s)", p.Name, index, end.ExitCode,
					scheduled, end.StartedAt.Sub(created), end.FinishedAt.Sub(created), end.FinishedAt.Sub(end.StartedAt.Time))
			} else {
				t.Logf("pod %s (index %s): %+v", p.Name, index, s.State)
			}
		}
		if done != batchv1.JobComplete {
			t.Logf("pod %s's log:\n%s", p.Name, kubectl("logs", p.Name, "--tail", "40"))
		}
	}
	if done != batchv1.JobComplete {
		t.Fatalf("the Job %s/%s: %s, want Complete", job.Namespace, job.Name, done)
	}
	if j.Status.CompletionTime != nil {
		t.Logf("the Job: complete %s after its creation", j.Status.CompletionTime.Sub(created))
	}
}

// checkShards checks that each directory is a shard of the same work by
// the same opcert, of its own index (dirs[i] is the pod of completion
// index i, shard i+1), all of its units played, and that together they
// play every unit of the work once. It logs each shard's wall time.
func checkShards(t *testing.T, dirs []string) {
	t.Helper()
	var first shard.Manifest
	played := map[int]string{}
	for i, dir := range dirs {
		m, err := shard.Read(dir)
		if err != nil {
			t.Fatal(err)
		}
		if want := (shard.Spec{Index: i + 1, Count: len(dirs)}); m.Shard != want || m.Tool != "opcert selftest" {
			t.Errorf("%s: %s's shard %s, want opcert selftest's %s", dir, m.Tool, m.Shard, want)
		}
		if len(m.Units) == 0 || m.Done != len(m.Units) {
			t.Errorf("%s: %d units played of %d, want all of some", dir, m.Done, len(m.Units))
		}
		if i == 0 {
			first = m
		} else if m.Plan != first.Plan || m.Version != first.Version || m.Total != first.Total {
			t.Errorf("%s: plan %s of %d units by opcert %s, shard 1's is %s of %d by %s: want one work, one opcert", dir, m.Plan, m.Total, m.Version, first.Plan, first.Total, first.Version)
		}
		for _, u := range m.Units {
			if other, ok := played[u]; ok {
				t.Errorf("unit %d is played by %s and %s", u, other, dir)
			}
			played[u] = dir
		}
		t.Logf("%s: shard %s, %d of %d units (estimated cost %d), %s", filepath.Base(dir), m.Shard, len(m.Units), m.Total, m.Cost, m.Wall.Round(100*time.Millisecond))
	}
	if len(played) != first.Total {
		t.Errorf("the shards play %d units of the work's %d", len(played), first.Total)
	}
}
