package timeline

import (
	"testing"
)

// Kinds of the same name in two groups are two objects (a ClusterOperator of
// config.openshift.io and one of another group, OLM's Probe resource and a
// probe result); the text of a reference leaves the group out.
func TestObjectRefGroupSeparatesKindsButNotTheirText(t *testing.T) {
	openshift := ObjectRef{Kind: "ClusterOperator", Group: "config.openshift.io", Name: "etcd"}
	other := ObjectRef{Kind: "ClusterOperator", Group: "example.com", Name: "etcd"}
	avail := cond("Available", "True", "", "", t0)
	st := State{}
	st.Apply(Event{Actor: "op", Verb: VerbCreate, Object: openshift, Conditions: []ConditionChange{{Type: "Available", After: &avail}}})
	st.Apply(Event{Actor: "op", Verb: VerbCreate, Object: other})
	if len(st) != 2 || len(st[openshift]) != 1 || len(st[other]) != 0 {
		t.Errorf("state %v: want the two groups' objects apart", st)
	}
	for _, tc := range []struct {
		ref  ObjectRef
		want string
	}{
		{openshift, "ClusterOperator/etcd"},
		{ObjectRef{Kind: "Deployment", Group: "apps", Namespace: "ns", Name: "d"}, "Deployment/ns/d"},
		{ObjectRef{Kind: "ConfigMap", Namespace: "ns", Name: "c"}, "ConfigMap/ns/c"},
		{ObjectRef{Kind: KindFile, Namespace: "master-0", Name: "/var/lock/kas-installer.lock"}, "File/master-0//var/lock/kas-installer.lock"},
	} {
		if got := tc.ref.String(); got != tc.want {
			t.Errorf("%+v.String() = %q, want %q", tc.ref, got, tc.want)
		}
	}
}

// Events on non-API kinds are facts, not writes: the State never holds their
// objects, failed or not.
func TestNonAPIEventsAreNotWrites(t *testing.T) {
	node := "master-0"
	file := ObjectRef{Kind: KindFile, Namespace: node, Name: "/etc/kubernetes/manifests/kube-apiserver-pod.yaml"}
	for _, e := range []Event{
		{Actor: "p", Verb: VerbStart, Object: ObjectRef{Kind: KindProcess, Name: "p"}},
		{Actor: "installer", Verb: VerbWrite, Object: file, Detail: "1024 bytes"},
		{Actor: "installer", Verb: VerbRename, Object: file, Target: "/etc/kubernetes/manifests/x.yaml"},
		{Actor: "installer", Verb: VerbSymlink, Object: ObjectRef{Kind: KindFile, Namespace: node, Name: "/etc/kubernetes/static-pods/last-known-good"},
			Target: "/etc/kubernetes/static-pods/kube-apiserver-pod-3"},
		{Actor: "pruner", Verb: VerbRemove, Object: file, Detail: "directory"},
		{Actor: "installer", Verb: VerbLock, Object: ObjectRef{Kind: KindFile, Namespace: node, Name: "/var/lock/kube-apiserver-installer.lock"}},
		{Actor: "installer", Verb: VerbUnlock, Object: ObjectRef{Kind: KindFile, Namespace: node, Name: "/var/lock/kube-apiserver-installer.lock"}},
		{Actor: "monitor", Verb: VerbProbe, Object: ObjectRef{Kind: KindProbe, Namespace: node, Name: "kube-apiserver/readyz"}, Detail: "200 OK"},
		{Actor: "monitor", Verb: VerbProbe, Object: ObjectRef{Kind: KindProbe, Namespace: node, Name: "kube-apiserver/readyz"}, Detail: "connection refused", Failed: true},
	} {
		if e.IsWrite() {
			t.Errorf("%s %s is a write", e.Verb, e.Object)
		}
		st := State{}
		st.Apply(e)
		if len(st) != 0 {
			t.Errorf("%s %s entered the state: %v", e.Verb, e.Object, st)
		}
	}
}

// A field's change is found by its path; its value after the change is
// decoded when there is one, and null or absent leave the target alone.
func TestEventFieldDecode(t *testing.T) {
	e := Event{Fields: []FieldChange{{Path: "spec.replicas", After: []byte("3")}, {Path: "metadata.annotations", After: []byte("null")}}}
	f, ok := e.Field("spec.replicas")
	var n int
	if !ok || !f.Decode(&n) || n != 3 {
		t.Errorf("spec.replicas: found %v, decoded %d, want 3", ok, n)
	}
	a := map[string]string{"kept": "yes"}
	if f, ok := e.Field("metadata.annotations"); !ok || f.Decode(&a) || a["kept"] != "yes" {
		t.Errorf("a null value: found %v, decoded into %v, want found and left alone", ok, a)
	}
	if _, ok := e.Field("status"); ok {
		t.Error("a path the event does not record was found")
	}
}

// Set follows a field the event changes: its value after the change, or
// the zero value where the change removed it; a field the event does not
// change is left as it was.
func TestEventSetFollowsTheField(t *testing.T) {
	e := Event{Fields: []FieldChange{{Path: "spec.replicas", After: []byte("3")}, {Path: "metadata.annotations", After: []byte("null")}}}
	n, a, s := 1, map[string]string{"old": "yes"}, "kept"
	var p, q *int
	Set(e, "spec.replicas", &n)
	Set(e, "metadata.annotations", &a)
	Set(e, "status.phase", &s)
	SetPointer(e, "spec.replicas", &p)
	q = &n
	SetPointer(e, "metadata.annotations", &q)
	if n != 3 || a != nil || s != "kept" || p == nil || *p != 3 || q != nil {
		t.Errorf("replicas %d, annotations %v, phase %q, pointer %v and %v; want 3, nil, kept, 3 and nil", n, a, s, p, q)
	}
}
