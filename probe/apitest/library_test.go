package apitest

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/opcert/opcert/probe"
)

var (
	t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	t1 = t0.Add(time.Minute)
)

func TestInstalled(t *testing.T) {
	c, d := clients(t)
	ok, err := probe.Installed(d)
	if err != nil || !ok {
		t.Fatalf("Installed = %v, %v; the fixtures' Probe CRD is installed", ok, err)
	}
	// The REST mapper of client.New asks the Discovery API.
	if _, err := probe.NewFromClient(c, types.NamespacedName{Namespace: ns, Name: "installed.v1.0.0"}); err != nil {
		t.Errorf("NewFromClient = %v; the fixtures' Probe CRD is installed", err)
	}
}

// An operator without condition annotations: it claims a Probe that does
// not exist yet, then says it is not upgradeable, then that it is. Only a
// change of status moves lastTransitionTime, and a call that changes
// nothing writes nothing.
func TestClaimAndSetUpgradeable(t *testing.T) {
	c, d := clients(t)
	ctx := context.Background()
	pc, err := probe.New(c, d, types.NamespacedName{Namespace: ns, Name: "claim-operator.v1.0.0"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pc.Get(ctx); !apierrors.IsNotFound(err) {
		t.Fatalf("Get before the claim = %v, want not found", err)
	}
	if err := pc.Claim(ctx); err != nil {
		t.Fatal(err)
	}
	p, err := pc.Get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := (&probe.Spec{Manager: probe.ManagerOperator}); !reflect.DeepEqual(p.Spec, want) {
		t.Fatalf("spec after the claim %+v, want %+v (probeResources nil)", p.Spec, want)
	}
	for _, step := range []struct {
		name    string
		status  metav1.ConditionStatus
		reason  string
		at      time.Time
		stamp   time.Time
		written bool
	}{
		{"not upgradeable", metav1.ConditionFalse, "FooProcess", t0, t0, true},
		{"again: no write", metav1.ConditionFalse, "FooProcess", t1, t0, false},
		{"another reason: not stamped", metav1.ConditionFalse, "BarProcess", t1, t0, true},
		{"upgradeable: stamped", metav1.ConditionTrue, "ReadyForUpgrade", t1, t1, true},
	} {
		before, err := pc.Get(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := pc.SetUpgradeable(ctx, step.status, step.reason, step.reason+" message", step.at); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		got, err := pc.Get(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := []metav1.Condition{{Type: probe.ConditionUpgradeable, Status: step.status, Reason: step.reason, Message: step.reason + " message",
			ObservedGeneration: got.Generation, LastTransitionTime: metav1.NewTime(step.stamp)}}
		if !equality.Semantic.DeepEqual(got.Status.Conditions, want) {
			t.Errorf("%s: conditions %+v, want %+v", step.name, got.Status.Conditions, want)
		}
		if written := got.ResourceVersion != before.ResourceVersion; written != step.written {
			t.Errorf("%s: written %v, want %v", step.name, written, step.written)
		}
	}
	// Update writes a whole status, guarded by the resourceVersion it was
	// read at.
	p, err = pc.Get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	stale := p.DeepCopy()
	p.Status.Conditions[0].Message = "ready, said by Update"
	if err := pc.Update(ctx, p); err != nil {
		t.Fatal(err)
	}
	if err := pc.Update(ctx, stale); !apierrors.IsConflict(err) {
		t.Errorf("Update of a Probe read before the last write = %v, want a conflict", err)
	}
}

// The seed's refusals on the API server's objects: OLM's Probe (its
// probeResources not nil, even empty, which survives the round trip) cannot
// be claimed nor written; a Probe not claimed cannot be written until it
// is.
func TestRefusals(t *testing.T) {
	c, d := clients(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name      string
		spec      *probe.Spec
		setErr    error // SetUpgradeable before the claim
		claimErr  error
		afterSpec *probe.Spec
	}{
		{"olm-resources", &probe.Spec{Manager: probe.ManagerCRDAnnotations, ProbeResources: []probe.Resource{{Resource: "foos.example.com", Upgradeable: "!Migrating"}}},
			probe.ErrNotManaged, probe.ErrProbeResources, &probe.Spec{Manager: probe.ManagerCRDAnnotations, ProbeResources: []probe.Resource{{Resource: "foos.example.com", Upgradeable: "!Migrating"}}}},
		{"olm-empty", &probe.Spec{Manager: probe.ManagerCRDAnnotations, ProbeResources: []probe.Resource{}},
			probe.ErrNotManaged, probe.ErrProbeResources, &probe.Spec{Manager: probe.ManagerCRDAnnotations, ProbeResources: []probe.Resource{}}},
		{"operator-empty", &probe.Spec{Manager: probe.ManagerOperator, ProbeResources: []probe.Resource{}},
			probe.ErrProbeResources, probe.ErrProbeResources, &probe.Spec{Manager: probe.ManagerOperator, ProbeResources: []probe.Resource{}}},
		{"nil-spec", nil, probe.ErrNotManaged, nil, &probe.Spec{Manager: probe.ManagerOperator}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key := types.NamespacedName{Namespace: ns, Name: "refusal-" + tc.name + ".v1.0.0"}
			if err := c.Create(ctx, &probe.Probe{ObjectMeta: metav1.ObjectMeta{Name: key.Name, Namespace: key.Namespace}, Spec: tc.spec}); err != nil {
				t.Fatal(err)
			}
			pc, err := probe.New(c, d, key)
			if err != nil {
				t.Fatal(err)
			}
			if err := pc.SetUpgradeable(ctx, metav1.ConditionFalse, "FooProcess", "busy", t0); !errors.Is(err, tc.setErr) {
				t.Errorf("SetUpgradeable before the claim = %v, want %v", err, tc.setErr)
			}
			err = pc.Claim(ctx)
			if !errors.Is(err, tc.claimErr) || (err == nil) != (tc.claimErr == nil) {
				t.Errorf("Claim = %v, want %v", err, tc.claimErr)
			}
			p := &probe.Probe{}
			if err := c.Get(ctx, key, p); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(p.Spec, tc.afterSpec) || p.Status.Conditions != nil {
				t.Errorf("after the claim: spec %+v, conditions %+v; want spec %+v and no condition", p.Spec, p.Status.Conditions, tc.afterSpec)
			}
			if tc.claimErr == nil {
				if err := pc.SetUpgradeable(ctx, metav1.ConditionFalse, "FooProcess", "busy", t0); err != nil {
					t.Errorf("SetUpgradeable after the claim: %v", err)
				}
			}
		})
	}
}
