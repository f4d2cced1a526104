package probe

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	fakediscovery "k8s.io/client-go/discovery/fake"
	clienttesting "k8s.io/client-go/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

var key = types.NamespacedName{Namespace: "operators", Name: "foo-operator.v1.0.0"}

// served is a discovery answering with the given resource lists.
func served(lists ...*metav1.APIResourceList) *fakediscovery.FakeDiscovery {
	return &fakediscovery.FakeDiscovery{Fake: &clienttesting.Fake{Resources: lists}}
}

var probes = &metav1.APIResourceList{GroupVersion: GroupVersion.String(), APIResources: []metav1.APIResource{
	{Name: "probes", Kind: "Probe", Namespaced: true},
	{Name: "probes/status", Kind: "Probe", Namespaced: true},
}}

func TestInstalled(t *testing.T) {
	broken := served(probes)
	broken.PrependReactor("get", "resource", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewServiceUnavailable("discovery down")
	})
	for _, tc := range []struct {
		name    string
		d       *fakediscovery.FakeDiscovery
		want    bool
		wantErr bool
	}{
		{"served", served(probes), true, false},
		{"group without probes", served(&metav1.APIResourceList{GroupVersion: GroupVersion.String(), APIResources: []metav1.APIResource{{Name: "operatorconditions", Kind: "OperatorCondition"}}}), false, false},
		{"group absent", served(&metav1.APIResourceList{GroupVersion: "v1", APIResources: []metav1.APIResource{{Name: "pods", Kind: "Pod"}}}), false, false},
		{"discovery fails", broken, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Installed(tc.d)
			if got != tc.want || (err != nil) != tc.wantErr {
				t.Fatalf("Installed = %v, %v; want %v, error %v", got, err, tc.want, tc.wantErr)
			}
			if tc.wantErr && !apierrors.IsServiceUnavailable(err) {
				t.Errorf("the error %v must wrap the API error", err)
			}
		})
	}
}

func TestNewNotInstalled(t *testing.T) {
	_, err := New(fakeClient(t, nil), served(), key)
	if !errors.Is(err, ErrNotInstalled) {
		t.Fatalf("New = %v, want ErrNotInstalled", err)
	}
}

func TestNewFromClient(t *testing.T) {
	s := runtime.NewScheme()
	if err := AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	servesProbes := meta.NewDefaultRESTMapper([]schema.GroupVersion{GroupVersion})
	servesProbes.Add(GroupVersion.WithKind("Probe"), meta.RESTScopeNamespace)
	for _, tc := range []struct {
		name    string
		mapper  meta.RESTMapper
		wantErr error
	}{
		{"served", servesProbes, nil},
		{"not served", meta.NewDefaultRESTMapper(nil), ErrNotInstalled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := fake.NewClientBuilder().WithScheme(s).WithRESTMapper(tc.mapper).Build()
			pc, err := NewFromClient(c, key)
			if !errors.Is(err, tc.wantErr) || (err == nil) != (tc.wantErr == nil) || (pc == nil) != (tc.wantErr != nil) {
				t.Fatalf("NewFromClient = %v, %v; want error %v", pc, err, tc.wantErr)
			}
		})
	}
}

func fakeClient(t *testing.T, funcs *interceptor.Funcs, objs ...client.Object) client.WithWatch {
	t.Helper()
	s := runtime.NewScheme()
	if err := AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	b := fake.NewClientBuilder().WithScheme(s).WithStatusSubresource(&Probe{}).WithObjects(objs...)
	if funcs != nil {
		b = b.WithInterceptorFuncs(*funcs)
	}
	return b.Build()
}

// newClient is a Client of key on a fake API server holding p (none if nil).
func newClient(t *testing.T, p *Probe, funcs *interceptor.Funcs) (*Client, client.Client) {
	t.Helper()
	var objs []client.Object
	if p != nil {
		objs = append(objs, p)
	}
	c := fakeClient(t, funcs, objs...)
	pc, err := New(c, served(probes), key)
	if err != nil {
		t.Fatal(err)
	}
	return pc, c
}

func stored(t *testing.T, c client.Client) *Probe {
	t.Helper()
	p := &Probe{}
	if err := c.Get(context.Background(), key, p); err != nil {
		t.Fatal(err)
	}
	return p
}

func withSpec(s *Spec) *Probe {
	return &Probe{ObjectMeta: metav1.ObjectMeta{Name: key.Name, Namespace: key.Namespace, Generation: 3}, Spec: s}
}

func TestClaim(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in      *Probe // nil: no Probe
		want    *Spec  // the spec after the claim
		wantErr error
		written bool
	}{
		{"no probe: created", nil, &Spec{Manager: ManagerOperator}, nil, true},
		{"nil spec", withSpec(nil), &Spec{Manager: ManagerOperator}, nil, true},
		{"no manager", withSpec(&Spec{}), &Spec{Manager: ManagerOperator}, nil, true},
		{"OLM's without resources", withSpec(&Spec{Manager: ManagerCRDAnnotations}), &Spec{Manager: ManagerOperator}, nil, true},
		{"already the operator's", withSpec(&Spec{Manager: ManagerOperator}), &Spec{Manager: ManagerOperator}, nil, false},
		{"OLM's with resources", withSpec(&Spec{Manager: ManagerCRDAnnotations, ProbeResources: []Resource{{Resource: "foos.example.com", Upgradeable: "!Migrating"}}}),
			&Spec{Manager: ManagerCRDAnnotations, ProbeResources: []Resource{{Resource: "foos.example.com", Upgradeable: "!Migrating"}}}, ErrProbeResources, false},
		{"empty resources are not nil", withSpec(&Spec{Manager: ManagerCRDAnnotations, ProbeResources: []Resource{}}),
			&Spec{Manager: ManagerCRDAnnotations, ProbeResources: []Resource{}}, ErrProbeResources, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pc, c := newClient(t, tc.in, nil)
			before := ""
			if tc.in != nil {
				before = stored(t, c).ResourceVersion
			}
			err := pc.Claim(context.Background())
			if !errors.Is(err, tc.wantErr) || (err == nil) != (tc.wantErr == nil) {
				t.Fatalf("Claim = %v, want %v", err, tc.wantErr)
			}
			got := stored(t, c)
			if !reflect.DeepEqual(got.Spec, tc.want) {
				t.Errorf("spec %+v, want %+v", got.Spec, tc.want)
			}
			if written := got.ResourceVersion != before; written != tc.written {
				t.Errorf("written %v, want %v", written, tc.written)
			}
		})
	}
}

var (
	t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	t1 = t0.Add(time.Minute)
)

func upgradeable(status metav1.ConditionStatus, reason string, at time.Time) metav1.Condition {
	return metav1.Condition{Type: ConditionUpgradeable, Status: status, Reason: reason, Message: reason + " message", ObservedGeneration: 3, LastTransitionTime: metav1.NewTime(at)}
}

func TestSetUpgradeable(t *testing.T) {
	claimed := func(c ...metav1.Condition) *Probe {
		p := withSpec(&Spec{Manager: ManagerOperator})
		p.Status.Conditions = c
		return p
	}
	for _, tc := range []struct {
		name    string
		in      *Probe
		status  metav1.ConditionStatus
		reason  string
		want    []metav1.Condition
		wantErr error
		written bool
	}{
		{"first", claimed(), metav1.ConditionFalse, "FooProcess", []metav1.Condition{upgradeable(metav1.ConditionFalse, "FooProcess", t1)}, nil, true},
		{"status moves: stamped", claimed(upgradeable(metav1.ConditionFalse, "FooProcess", t0)), metav1.ConditionTrue, "ReadyForUpgrade",
			[]metav1.Condition{upgradeable(metav1.ConditionTrue, "ReadyForUpgrade", t1)}, nil, true},
		{"reason moves: not stamped", claimed(upgradeable(metav1.ConditionFalse, "FooProcess", t0)), metav1.ConditionFalse, "BarProcess",
			[]metav1.Condition{upgradeable(metav1.ConditionFalse, "BarProcess", t0)}, nil, true},
		{"unchanged: no write", claimed(upgradeable(metav1.ConditionFalse, "FooProcess", t0)), metav1.ConditionFalse, "FooProcess",
			[]metav1.Condition{upgradeable(metav1.ConditionFalse, "FooProcess", t0)}, nil, false},
		{"nil spec", withSpec(nil), metav1.ConditionFalse, "FooProcess", nil, ErrNotManaged, false},
		{"OLM's", withSpec(&Spec{Manager: ManagerCRDAnnotations}), metav1.ConditionFalse, "FooProcess", nil, ErrNotManaged, false},
		{"operator's with resources", withSpec(&Spec{Manager: ManagerOperator, ProbeResources: []Resource{}}), metav1.ConditionFalse, "FooProcess", nil, ErrProbeResources, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pc, c := newClient(t, tc.in, nil)
			before := stored(t, c).ResourceVersion
			err := pc.SetUpgradeable(context.Background(), tc.status, tc.reason, tc.reason+" message", t1)
			if !errors.Is(err, tc.wantErr) || (err == nil) != (tc.wantErr == nil) {
				t.Fatalf("SetUpgradeable = %v, want %v", err, tc.wantErr)
			}
			got := stored(t, c)
			if !equality.Semantic.DeepEqual(got.Status.Conditions, tc.want) {
				t.Errorf("conditions %+v, want %+v", got.Status.Conditions, tc.want)
			}
			if written := got.ResourceVersion != before; written != tc.written {
				t.Errorf("written %v, want %v", written, tc.written)
			}
		})
	}
}

func TestUpdate(t *testing.T) {
	status := Status{Conditions: []metav1.Condition{upgradeable(metav1.ConditionTrue, "ReadyForUpgrade", t0)}}
	for _, tc := range []struct {
		name    string
		in      *Probe
		change  func(*Probe)
		wantErr error // the sentinel a refusal wraps, if it has one
		refused bool
	}{
		{"writes the status only", withSpec(&Spec{Manager: ManagerOperator}), func(p *Probe) { p.Labels = map[string]string{"written": "no"} }, nil, false},
		{"not claimed", withSpec(&Spec{Manager: ManagerCRDAnnotations}), nil, ErrNotManaged, true},
		{"with resources", withSpec(&Spec{Manager: ManagerOperator, ProbeResources: []Resource{{Resource: "foos.example.com"}}}), nil, ErrProbeResources, true},
		{"another probe", withSpec(&Spec{Manager: ManagerOperator}), func(p *Probe) { p.Name = "bar-operator.v1.0.0" }, nil, true},
		{"not read", withSpec(&Spec{Manager: ManagerOperator}), func(p *Probe) { p.ResourceVersion = "" }, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pc, c := newClient(t, tc.in, nil)
			p, err := pc.Get(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			before := p.DeepCopy()
			p.Status = *status.DeepCopy()
			if tc.change != nil {
				tc.change(p)
			}
			err = pc.Update(context.Background(), p)
			if (err != nil) != tc.refused || tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Fatalf("Update = %v, want refused %v (%v)", err, tc.refused, tc.wantErr)
			}
			got := stored(t, c)
			want := before.Status
			if !tc.refused {
				want = status
			}
			if !equality.Semantic.DeepEqual(got.Status, want) || !reflect.DeepEqual(got.Spec, before.Spec) || got.Labels != nil {
				t.Errorf("stored %+v %+v, want %+v %+v", got.Spec, got.Status, before.Spec, want)
			}
		})
	}
}

// The API server's refusals reach the caller wrapped: a conflict is still
// a conflict to apierrors.
func TestAPIErrorsWrapped(t *testing.T) {
	conflict := apierrors.NewConflict(schema.GroupResource{Group: GroupVersion.Group, Resource: "probes"}, key.Name, errors.New("changed"))
	funcs := &interceptor.Funcs{
		Update: func(context.Context, client.WithWatch, client.Object, ...client.UpdateOption) error { return conflict },
		SubResourceUpdate: func(context.Context, client.Client, string, client.Object, ...client.SubResourceUpdateOption) error {
			return conflict
		},
	}
	for _, tc := range []struct {
		name string
		in   *Probe
		call func(*Client) error
		want func(error) bool
	}{
		{"Get", nil, func(pc *Client) error { _, err := pc.Get(context.Background()); return err }, apierrors.IsNotFound},
		{"Claim", withSpec(nil), func(pc *Client) error { return pc.Claim(context.Background()) }, apierrors.IsConflict},
		{"SetUpgradeable", withSpec(&Spec{Manager: ManagerOperator}), func(pc *Client) error {
			return pc.SetUpgradeable(context.Background(), metav1.ConditionTrue, "ReadyForUpgrade", "ready", t0)
		}, apierrors.IsConflict},
		{"Update", withSpec(&Spec{Manager: ManagerOperator}), func(pc *Client) error {
			p, err := pc.Get(context.Background())
			if err != nil {
				return err
			}
			return pc.Update(context.Background(), p)
		}, apierrors.IsConflict},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pc, _ := newClient(t, tc.in, funcs)
			if err := tc.call(pc); !tc.want(err) {
				t.Errorf("error %v does not wrap the API's", err)
			}
		})
	}
}
