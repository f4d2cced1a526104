package conformance

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/reports"
)

// Deployments scales the Deployments that play a role on a cluster
// (cluster mode), one per instance of the role. opcert never deletes or
// edits a team's Deployment: it only patches its scale subresource, which
// a least-privilege role can grant alone (config/rbac). Killing an
// instance scales its Deployment to 0 and remembers the replicas it had;
// starting it scales back to them. Close puts every Deployment back to the
// replicas it had when the run first saw it, whatever ended the run.
type Deployments struct {
	api client.Client // the run's (guarded) client

	mu   sync.Mutex
	deps map[string]*deployment
}

type deployment struct {
	role string
	key  types.NamespacedName
	// original is the replicas at the run's first sight, restored by
	// Close; up what a start scales to (the last count above 0 seen, 1 if
	// none); replicas what opcert last saw or set.
	original, up, replicas int32
	endings                []string
}

// restoreTimeout bounds Close: it runs after the run's context is gone
// (Ctrl-C), and must neither hang opcert nor give up at once.
const restoreTimeout = 20 * time.Second

// NewDeployments scales through api, which must know apps/v1 and
// autoscaling/v1.
func NewDeployments(api client.Client) *Deployments {
	return &Deployments{api: api, deps: map[string]*deployment{}}
}

// Attach reads the scale of the Deployment key that plays instance name
// (once per run) and tells whether it runs (its replicas are above 0).
func (d *Deployments) Attach(ctx context.Context, name, role string, key types.NamespacedName) (bool, error) {
	d.mu.Lock()
	dep := d.deps[name]
	d.mu.Unlock()
	if dep != nil {
		return dep.replicas > 0, nil
	}
	n, err := d.scale(ctx, key, nil)
	if err != nil {
		return false, fmt.Errorf("reading the scale of Deployment %s (%s): %w", key, name, err)
	}
	dep = &deployment{role: role, key: key, original: n, up: max(n, 1), replicas: n}
	d.mu.Lock()
	d.deps[name] = dep
	d.mu.Unlock()
	return n > 0, nil
}

// Attached tells whether the instance's Deployment has been attached.
func (d *Deployments) Attached(name string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.deps[name] != nil
}

// Note adds what the run did to the instance's Deployment besides its
// scale (a mechanism's own writes to it) to what the report says of it.
func (d *Deployments) Note(name, what string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if dep := d.deps[name]; dep != nil {
		dep.endings = append(dep.endings, what)
	}
}

// Running tells whether the instance's Deployment has replicas, as far as
// opcert set or saw.
func (d *Deployments) Running(name string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	dep := d.deps[name]
	return dep != nil && dep.replicas > 0
}

// Kill scales the instance's Deployment to 0, remembering its replicas.
func (d *Deployments) Kill(ctx context.Context, name string) error {
	dep, err := d.get(name)
	if err != nil {
		return err
	}
	was := dep.replicas
	if err := d.set(ctx, dep, 0); err != nil {
		return err
	}
	if was > 0 {
		dep.up = was
	}
	d.mu.Lock()
	dep.endings = append(dep.endings, fmt.Sprintf("scaled to 0 by opcert (had %d): its pods stopped as Kubernetes stops them, SIGTERM then SIGKILL after their grace period", was))
	d.mu.Unlock()
	return nil
}

// Start scales the instance's Deployment back to the replicas it had
// before it was killed (1 if it never had any).
func (d *Deployments) Start(ctx context.Context, name string) error {
	dep, err := d.get(name)
	if err != nil {
		return err
	}
	return d.set(ctx, dep, dep.up)
}

func (d *Deployments) get(name string) (*deployment, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	dep := d.deps[name]
	if dep == nil {
		return nil, fmt.Errorf("no Deployment attached for %s", name)
	}
	return dep, nil
}

func (d *Deployments) set(ctx context.Context, dep *deployment, n int32) error {
	got, err := d.scale(ctx, dep.key, &n)
	if err != nil {
		return fmt.Errorf("scaling Deployment %s to %d: %w", dep.key, n, err)
	}
	d.mu.Lock()
	dep.replicas = got
	d.mu.Unlock()
	return nil
}

// scale reads the Deployment's replicas and, if n is given, patches them
// to n (a merge patch of the scale subresource: no conflict with the
// Deployment's controller, and no right on the Deployment itself).
func (d *Deployments) scale(ctx context.Context, key types.NamespacedName, n *int32) (int32, error) {
	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}}
	sc := &autoscalingv1.Scale{}
	if n == nil {
		err := d.api.SubResource("scale").Get(ctx, dep, sc)
		return sc.Spec.Replicas, err
	}
	patch := client.RawPatch(types.MergePatchType, fmt.Appendf(nil, `{"spec":{"replicas":%d}}`, *n))
	if err := d.api.SubResource("scale").Patch(ctx, dep, patch, client.WithSubResourceBody(sc)); err != nil {
		return 0, err
	}
	return sc.Spec.Replicas, nil
}

// Restore scales the instance's Deployment back to the replicas it had
// when the run first saw it, before Close: for a mechanism that undoes its
// own writes to a Deployment (a pod template label) and must not have a
// pod run them first.
func (d *Deployments) Restore(ctx context.Context, name string) error {
	dep, err := d.get(name)
	if err != nil || dep.replicas == dep.original {
		return err
	}
	return d.set(ctx, dep, dep.original)
}

// Close scales every Deployment back to the replicas it had when the run
// first saw it, within restoreTimeout of a context of its own (the run's
// may be cancelled), and returns what the report says of each instance.
func (d *Deployments) Close() []reports.Process {
	ctx, cancel := context.WithTimeout(context.Background(), restoreTimeout)
	defer cancel()
	d.mu.Lock()
	names := make([]string, 0, len(d.deps))
	for n := range d.deps {
		names = append(names, n)
	}
	d.mu.Unlock()
	sort.Strings(names)
	var out []reports.Process
	for _, n := range names {
		dep := d.deps[n]
		var err error
		if dep.replicas != dep.original {
			err = d.set(ctx, dep, dep.original)
		}
		switch {
		case err != nil:
			dep.endings = append(dep.endings, fmt.Sprintf("NOT restored to %d replicas: %v", dep.original, err))
		case len(dep.endings) > 0:
			dep.endings = append(dep.endings, fmt.Sprintf("restored to %d replicas at the end of the run", dep.original))
		default:
			dep.endings = append(dep.endings, fmt.Sprintf("running at the end of the run, left at %d replicas as the run found it (opcert stops a Deployment only by scaling it)", dep.original))
		}
		out = append(out, reports.Process{Name: n, Role: dep.role, Command: "deployment " + dep.key.String(), Endings: dep.endings})
	}
	return out
}
