package record

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/sim/timeline"
)

// readAll reads every event of a source.
func readAll(t *testing.T, src Source) []timeline.Event {
	t.Helper()
	var out []timeline.Event
	for {
		e, err := src.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
}

// kubectlStream makes, on the test server, what `kubectl get
// clusteroperators -w -o json --show-managed-fields` prints while an
// operator writes, the detector challenges and the operator answers: each
// version of the object as the server returns it, indented as kubectl
// indents (and, with events, wrapped as --output-watch-events wraps it).
func kubectlStream(t *testing.T, events bool) (string, []byte) {
	t.Helper()
	ctx := context.Background()
	c := api.Client
	co := &configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: unique("kubectl")}}
	var out bytes.Buffer
	print := func(typ string) {
		var got configv1.ClusterOperator
		if err := c.Get(ctx, client.ObjectKeyFromObject(co), &got); err != nil {
			t.Fatal(err)
		}
		got.APIVersion, got.Kind = "config.openshift.io/v1", "ClusterOperator"
		var v any = &got
		if events {
			v = map[string]any{"type": typ, "object": &got}
		}
		data, err := json.MarshalIndent(v, "", "    ")
		if err != nil {
			t.Fatal(err)
		}
		out.Write(append(data, '\n'))
	}
	if err := c.Create(ctx, co, client.FieldOwner("etcd-operator")); err != nil {
		t.Fatal(err)
	}
	print("ADDED")
	co.Status.Conditions = []configv1.ClusterOperatorStatusCondition{cond("Available", "True", "All is well")}
	if err := c.Status().Update(ctx, co, client.FieldOwner("etcd-operator")); err != nil {
		t.Fatal(err)
	}
	print("MODIFIED")
	co.Status.Conditions[0].Message = "Checking: All is well"
	if err := c.Status().Update(ctx, co, client.FieldOwner("detector")); err != nil {
		t.Fatal(err)
	}
	print("MODIFIED")
	print("MODIFIED") // the same version again, as kubectl prints it after a reconnect
	co.Status.Conditions[0].Message = "All is well"
	if err := c.Status().Update(ctx, co, client.FieldOwner("etcd-operator")); err != nil {
		t.Fatal(err)
	}
	print("MODIFIED")
	return co.Name, out.Bytes()
}

// A kubectl -w -o json stream is told from a timeline by its first value
// and becomes the events a recording makes: one per version, diffed
// against the version before, its writer and time from managedFields.
func TestOpenKubectlStream(t *testing.T) {
	needAPI(t)
	for _, events := range []bool{false, true} {
		name, data := kubectlStream(t, events)
		src, err := Open(bytes.NewReader(data), testRecording())
		if err != nil {
			t.Fatal(err)
		}
		if src.Format() != FormatKubectl {
			t.Fatalf("format %s", src.Format())
		}
		got := readAll(t, src)
		want := []struct{ verb, actor, role, message string }{
			{timeline.VerbCreate, "etcd-operator", "operator", ""},
			{timeline.VerbUpdateStatus, "etcd-operator", "operator", "All is well"},
			{timeline.VerbUpdateStatus, "detector", "detector", "Checking: All is well"},
			{timeline.VerbUpdateStatus, "etcd-operator", "operator", "All is well"},
		}
		if len(got) != len(want) {
			t.Fatalf("watch events %v: %d events, want %d: %+v", events, len(got), len(want), got)
		}
		for i, w := range want {
			e := got[i]
			if e.Object.Name != name || e.Object.Group != "config.openshift.io" || e.Verb != w.verb || e.Actor != w.actor || e.Role != w.role {
				t.Errorf("event %d: %s %s by %s (%s), want %s by %s (%s)", i, e.Verb, e.Object, e.Actor, e.Role, w.verb, w.actor, w.role)
			}
			if w.message != "" && (len(e.Conditions) != 1 || e.Conditions[0].After.Message != w.message) {
				t.Errorf("event %d: conditions %+v, want Available's message %q", i, e.Conditions, w.message)
			}
			if e.Time.IsZero() || (i > 0 && e.Time.Before(got[i-1].Time)) || e.Seq != i+1 {
				t.Errorf("event %d: time %s seq %d", i, e.Time, e.Seq)
			}
		}
	}
}

// Open tells the formats apart, and says what it needs when it cannot.
func TestOpenFormats(t *testing.T) {
	line := `{"seq":1,"time":"2026-01-01T00:00:00Z","actor":"a","verb":"start","object":{"kind":"Process","name":"a"}}` + "\n"
	src, err := Open(strings.NewReader("\n\n"+line+line), nil)
	if err != nil || src.Format() != FormatJSONL {
		t.Fatalf("JSON lines: %v %v", src, err)
	}
	if got := readAll(t, src); len(got) != 2 {
		t.Errorf("%d events, want 2", len(got))
	}
	if src, err := Open(strings.NewReader(""), nil); err != nil || len(readAll(t, src)) != 0 {
		t.Errorf("empty input: %v", err)
	}
	for _, bad := range []struct{ in, want string }{
		{`{"hello":"world"}`, "neither an opcert timeline"},
		{`[1,2]`, "first value does not parse"},
		{`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}}`, "--show-managed-fields"},
		{`{"type":"BOOKMARK","object":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}}}`, `watch event type "BOOKMARK"`},
	} {
		src, err := Open(strings.NewReader(bad.in), nil)
		if err == nil {
			_, err = src.Next()
		}
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: %v, want an error with %q", bad.in, err, bad.want)
		}
	}
}
