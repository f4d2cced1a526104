package olm_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/cluster/clustertest"
	"github.com/opcert/opcert/conformance/conformancetest"
	"github.com/opcert/opcert/conformance/olm"
	"github.com/opcert/opcert/conformance/olm/olmtest"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// Cluster mode for seed 002 (cluster/doc.go): the example OLM-managed
// operator (examples/olmoperator: controller-runtime, nothing of opcert)
// deployed by examples/olmoperator/deploy.yaml, one Deployment watching
// every namespace and speaking through its CRs, plays the operator, the
// run reaching the server as a cluster (conformancetest.PlayCluster) as a
// user bound only to the shipped roles; clustertest's Kubelet runs its
// binary while the Deployment has replicas. opcert plays the aggregator
// and OLM in its own process, on the wall clock, against the cluster.
// opcert run's own part (its flags, the rights it checks first) is
// cmd/opcert's to test.

// olm-operator-migration on the cluster, at 0.05 (3m30s in 10.5s): the
// example's Deployment passes OLM-011 and every OLM rule, its CRs' status
// is the operator's and the Probe the aggregator's, and the cluster is
// left as found (the sample CRDs' annotations included). Its lying
// variant, deployed beside it, fails OLM-011. A scenario whose operator
// must write its own Probe is refused, and so is a run while another
// holds the sample CRDs; a hold whose run is gone is taken over.
func TestClusterModeCertifiesTheOLMOperator(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	bin := conformancetest.Build(t, "../../examples/olmoperator/cmd/olmoperator")
	tm := olmtest.Deploy(t, api, bin, "../..")
	tm.Bind(t, "../..", "opcert-olm", true)
	user := clustertest.User(t, api, "opcert-olm-runner", "opcert-olm")
	m := olm.Mechanism(olm.DefaultConfig())
	subject := func(dep string) map[string]string {
		return map[string]string{olm.RoleOperator: "deployment:" + olmtest.Namespace + "/" + dep}
	}
	// play plays the built-in with the Deployment dep; the cluster must
	// then be as before says.
	play := func(dep string, before []string) (reports.Run, *timeline.Timeline) {
		t.Helper()
		run, tl, _ := conformancetest.PlayCluster(t, user, prefix(), m, "olm-operator-migration", subject(dep), 0.05)
		clustertest.SameState(t, before, tm.State(t, false))
		return run, tl
	}

	// A scenario in which the operator must write its own Probe, named
	// under the run's prefix, is refused there before anything is written.
	before := tm.State(t, false)
	run, _, _ := conformancetest.PlayCluster(t, user, prefix(), m, "../../examples/olmoperator/testdata/probe-migration.yaml", subject(olmtest.Operator), 0.05)
	if !strings.Contains(run.Error, "the operator's Probe is named under the run's prefix") {
		t.Errorf("a Probe the operator manages, on a cluster: error %q", run.Error)
	}
	clustertest.SameState(t, before, tm.State(t, false))
	// Another run holds the sample CRDs (its namespace exists): this one
	// stops before it plays, and leaves the hold as it found it.
	hold(t, tm, "foos.example.com", olmtest.Namespace)
	held := tm.State(t, false)
	run, _, _ = conformancetest.PlayCluster(t, user, prefix(), m, "olm-operator-migration", subject(olmtest.Operator), 0.05)
	if !strings.Contains(run.Error, "another olm run (namespace example-olm) holds CRD foos.example.com") {
		t.Errorf("the CRDs held by another run: error %q", run.Error)
	}
	clustertest.SameState(t, held, tm.State(t, false))
	hold(t, tm, "foos.example.com", "")

	run, tl := play(olmtest.Operator, before)
	conformancetest.Certified(t, run, "OLM-001", "OLM-003", "OLM-006", "OLM-011", "EXPECT")
	writers := conformancetest.Writers(tl, func(e timeline.Event) string {
		if e.Object.Kind == "Namespace" || e.Actor == "scenario" {
			return ""
		}
		return e.Actor + " " + e.Role + " " + e.Object.Kind + " " + e.Verb
	})
	for _, w := range []string{"operator operator Foo update-status", "aggregator aggregator Probe update-status", "olm olm Upgrade update-status"} {
		if !slices.Contains(writers, w) {
			t.Errorf("no write %q on the timeline: %v", w, writers)
		}
	}
	if len(run.Processes) != 1 || !strings.Contains(strings.Join(run.Processes[0].Endings, "; "), "annotations put back as the run found them") {
		t.Errorf("the report says of the Deployment: %+v", run.Processes)
	}
	if t.Failed() {
		t.Log(tm.Kubelet.Logs())
		return
	}

	// The liar in the honest one's place: a copy of its Deployment with
	// --lies, the honest one scaled to 0.
	liar := lying(t, tm)
	// A hold whose run is gone (its namespace with it) is taken over, and
	// not put back.
	before = tm.State(t, false)
	hold(t, tm, "bars.example.com", "opcert-gone-01-operators")
	run, _ = play(liar, before)
	if c, _ := conformancetest.Case(run, "OLM-011"); c.Status != reports.Fail || len(c.Evidence) == 0 {
		t.Errorf("the liar: OLM-011 %s (%d evidence): %s", c.Status, len(c.Evidence), c.Message)
	}
	if run.Error != "" || len(run.NotJudged) > 0 {
		t.Errorf("the liar: error %q, not judged %q", run.Error, run.NotJudged)
	}
	if t.Failed() {
		t.Log(tm.Kubelet.Logs())
	}
}

// hold sets (or, with "", removes) the hold of a run whose operator's
// namespace is ns on CRD name, as that run would.
func hold(t *testing.T, tm *olmtest.Team, name, ns string) {
	t.Helper()
	crd := &unstructured.Unstructured{}
	crd.SetAPIVersion("apiextensions.k8s.io/v1")
	crd.SetKind("CustomResourceDefinition")
	if err := tm.Admin.Get(context.Background(), client.ObjectKey{Name: name}, crd); err != nil {
		t.Fatal(err)
	}
	ann := crd.GetAnnotations()
	if ann == nil {
		ann = map[string]string{}
	}
	if ns == "" {
		delete(ann, "opcert.io/olm-run")
	} else {
		ann["opcert.io/olm-run"] = ns
	}
	crd.SetAnnotations(ann)
	if err := tm.Admin.Update(context.Background(), crd); err != nil {
		t.Fatal(err)
	}
}

// lying deploys the example with --lies beside the honest one, which it
// scales to 0, and waits for it alone to run; it returns its name.
func lying(t *testing.T, tm *olmtest.Team) string {
	t.Helper()
	ctx := context.Background()
	honest := &appsv1.Deployment{}
	if err := tm.Admin.Get(ctx, client.ObjectKey{Namespace: olmtest.Namespace, Name: olmtest.Operator}, honest); err != nil {
		t.Fatal(err)
	}
	name := olmtest.Operator + "-liar"
	liar := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: olmtest.Namespace, Name: name}, Spec: *honest.Spec.DeepCopy()}
	liar.Spec.Selector.MatchLabels = map[string]string{"app": name}
	liar.Spec.Template.Labels = map[string]string{"app": name}
	c := &liar.Spec.Template.Spec.Containers[0]
	c.Args = append(c.Args, "--lies")
	if err := tm.Admin.Create(ctx, liar); err != nil {
		t.Fatal(err)
	}
	honest.Spec.Replicas = ptr.To[int32](0)
	if err := tm.Admin.Update(ctx, honest); err != nil {
		t.Fatal(err)
	}
	tm.Kubelet.WaitRunning(t, name, 10*time.Second)
	return name
}
