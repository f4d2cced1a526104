package probe

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The library for operators that write their Probe themselves (002 §Writing
// to the Probe Resource Directly): it detects the Probe kind through the
// Discovery API, gets the operator's Probe, claims it (spec.manager:
// operator) and updates its status, refusing, as the seed says, while
// spec.probeResources is not nil.

// Errors the library's refusals wrap (test them with errors.Is).
var (
	// ErrNotInstalled: the API server does not serve the Probe kind.
	ErrNotInstalled = errors.New("the API server does not serve " + GroupVersion.String() + " Probe (OLM's Probe CRD is not installed)")
	// ErrNotManaged: spec.manager is not operator; the operator must Claim
	// the Probe before it writes its status.
	ErrNotManaged = errors.New("spec.manager is not " + ManagerOperator + ": Claim the Probe first")
	// ErrProbeResources: spec.probeResources is not nil, so OLM aggregates
	// the owned CRDs' conditions and the operator must not manage the Probe.
	ErrProbeResources = errors.New("spec.probeResources is not nil: the Probe aggregates the owned CRDs' conditions, the operator cannot manage it")
)

// Installed tells whether the API server serves the Probe kind.
func Installed(d discovery.DiscoveryInterface) (bool, error) {
	list, err := d.ServerResourcesForGroupVersion(GroupVersion.String())
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("probe: discovering %s: %w", GroupVersion, err)
	}
	for _, r := range list.APIResources {
		if r.Kind == "Probe" && r.Name == "probes" {
			return true, nil
		}
	}
	return false, nil
}

// Client reads and writes one operator's Probe. Its client.Client's scheme
// must hold this package's types (AddToScheme).
type Client struct {
	c   client.Client
	key types.NamespacedName
}

// New returns a Client of the Probe at key (named like the operator's CSV,
// in its namespace), or an error wrapping ErrNotInstalled when the API
// server does not serve Probes.
func New(c client.Client, d discovery.DiscoveryInterface, key types.NamespacedName) (*Client, error) {
	ok, err := Installed(d)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("probe %s: %w", key, ErrNotInstalled)
	}
	return &Client{c: c, key: key}, nil
}

// NewFromClient is New for a caller without a discovery client (an actor
// of the simulator has only its client.Client): it asks c's REST mapper,
// which controller-runtime backs with the Discovery API, whether the API
// server serves Probes.
func NewFromClient(c client.Client, key types.NamespacedName) (*Client, error) {
	_, err := c.RESTMapper().RESTMapping(schema.GroupKind{Group: GroupVersion.Group, Kind: "Probe"}, GroupVersion.Version)
	if meta.IsNoMatchError(err) {
		return nil, fmt.Errorf("probe %s: %w", key, ErrNotInstalled)
	}
	if err != nil {
		return nil, fmt.Errorf("probe: mapping %s Probe: %w", GroupVersion, err)
	}
	return &Client{c: c, key: key}, nil
}

// Get reads the Probe.
func (pc *Client) Get(ctx context.Context) (*Probe, error) {
	p := &Probe{}
	if err := pc.c.Get(ctx, pc.key, p); err != nil {
		return nil, fmt.Errorf("probe: getting Probe %s: %w", pc.key, err)
	}
	return p, nil
}

// Claim tells OLM that the operator manages the Probe: it sets
// spec.manager to operator, creating the spec if it is nil, and the Probe if
// there is none (OLM creates one only for an operator whose CRDs carry
// condition annotations, 002 §Example Workflow). It refuses, with
// ErrProbeResources, a Probe whose spec.probeResources is not nil. A Probe
// already claimed is not written again.
func (pc *Client) Claim(ctx context.Context) error {
	p := &Probe{}
	err := pc.c.Get(ctx, pc.key, p)
	if apierrors.IsNotFound(err) {
		p = &Probe{ObjectMeta: metav1.ObjectMeta{Name: pc.key.Name, Namespace: pc.key.Namespace}, Spec: &Spec{Manager: ManagerOperator}}
		if err := pc.c.Create(ctx, p); err != nil {
			return fmt.Errorf("probe: creating Probe %s: %w", pc.key, err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("probe: getting Probe %s: %w", pc.key, err)
	}
	if p.Spec == nil {
		p.Spec = &Spec{}
	}
	if p.Spec.ProbeResources != nil {
		return fmt.Errorf("probe: claiming Probe %s: %w", pc.key, ErrProbeResources)
	}
	if p.Spec.Manager == ManagerOperator {
		return nil
	}
	p.Spec.Manager = ManagerOperator
	if err := pc.c.Update(ctx, p); err != nil {
		return fmt.Errorf("probe: claiming Probe %s: %w", pc.key, err)
	}
	return nil
}

// SetUpgradeable sets the status's Upgradeable condition, stamped with now
// (from the caller's clock) when its status changes and with the Probe's
// generation, through the status subresource. A condition already so is
// not written again. It refuses a Probe the operator has not claimed
// (ErrNotManaged) or whose spec.probeResources is not nil
// (ErrProbeResources).
func (pc *Client) SetUpgradeable(ctx context.Context, status metav1.ConditionStatus, reason, message string, now time.Time) error {
	p, err := pc.Get(ctx)
	if err != nil {
		return err
	}
	if err := managed(p); err != nil {
		return fmt.Errorf("probe: setting Upgradeable on Probe %s: %w", pc.key, err)
	}
	if !meta.SetStatusCondition(&p.Status.Conditions, metav1.Condition{
		Type:               ConditionUpgradeable,
		Status:             status,
		Reason:             reason,
		Message:            message,
		ObservedGeneration: p.Generation,
		LastTransitionTime: metav1.NewTime(now),
	}) {
		return nil
	}
	if err := pc.c.Status().Update(ctx, p); err != nil {
		return fmt.Errorf("probe: setting Upgradeable on Probe %s: %w", pc.key, err)
	}
	return nil
}

// Update writes p's whole status through the status subresource (its spec
// is not written). p must be the Client's Probe as Get read it and changed:
// the checks of SetUpgradeable apply to its spec, and its resourceVersion
// makes the API server refuse the write, as a conflict, if the Probe
// changed since.
func (pc *Client) Update(ctx context.Context, p *Probe) error {
	if key := client.ObjectKeyFromObject(p); key != pc.key {
		return fmt.Errorf("probe: updating Probe %s: this Client writes Probe %s", key, pc.key)
	}
	if p.ResourceVersion == "" {
		return fmt.Errorf("probe: updating Probe %s: give the Probe as Get read it (it has no resourceVersion)", pc.key)
	}
	if err := managed(p); err != nil {
		return fmt.Errorf("probe: updating Probe %s: %w", pc.key, err)
	}
	if err := pc.c.Status().Update(ctx, p); err != nil {
		return fmt.Errorf("probe: updating the status of Probe %s: %w", pc.key, err)
	}
	return nil
}

// managed says why the operator may not write p's status, if it may not.
func managed(p *Probe) error {
	if p.Spec == nil || p.Spec.Manager != ManagerOperator {
		return ErrNotManaged
	}
	if p.Spec.ProbeResources != nil {
		return ErrProbeResources
	}
	return nil
}
