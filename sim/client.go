package sim

import (
	"context"
	"errors"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/opcert/opcert/sim/timeline"
)

// FieldManager is the field manager of the writes opcert's own actors make
// on its API server (apiserver.Start) and on a cluster (apiserver.Attach). The API
// server takes a write's manager from its client's user agent, which is
// the binary's name unless set (a test binary's differs): a recording of a
// run (opcert watch) sees opcert's own detector under this name.
const FieldManager = "opcert"

// ErrCutOff is returned by every call of an actor cut off from the API server.
var ErrCutOff = errors.New("connection refused: cut off from the API server")

// Client is the controller-runtime client an actor is given. Writes go to
// the API server and land on the timeline under the actor's name; reads are
// answered from the run's write-through store when it knows the object.
type Client struct {
	client.Client
	s     *Scheduler
	actor string
	role  string
}

// Client returns a client that acts as actor (in role) over api, a direct
// (uncached, unthrottled) client of the run's API server.
func (s *Scheduler) Client(api client.Client, actor, role string) *Client {
	return &Client{Client: api, s: s, actor: actor, role: role}
}

// cutOff is the error every call of an actor cut off from the API server
// gets, or of one a crash killed in the middle of its reconcile.
func (c *Client) cutOff() error {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	if st, ok := c.s.actors[c.actor]; ok && st.partitioned {
		return fmt.Errorf("%s: %w", c.actor, ErrCutOff)
	}
	if c.s.dead[c.actor] {
		return fmt.Errorf("%s: %w", c.actor, ErrCrashed)
	}
	return nil
}

func (c *Client) key(obj client.Object) (storeKey, error) {
	gvk, err := apiutil.GVKForObject(obj, c.Scheme())
	if err != nil {
		return storeKey{}, err
	}
	return storeKey{gvk, client.ObjectKeyFromObject(obj)}, nil
}

// Get answers from the store when it can, else asks the API server.
func (c *Client) Get(ctx context.Context, key types.NamespacedName, obj client.Object, opts ...client.GetOption) error {
	if err := c.cutOff(); err != nil {
		return err
	}
	gvk, err := apiutil.GVKForObject(obj, c.Scheme())
	if err != nil {
		return err
	}
	k := storeKey{gvk, key}
	if err := c.injected(Reads, k); err != nil {
		return err
	}
	if lag := c.s.lagOf(c.role, c.actor); lag > 0 {
		if known, exists := c.s.store.asOf(k, c.s.clock.Now().Add(-lag), obj); known {
			if !exists {
				return apierrors.NewNotFound(c.resource(k), key.Name)
			}
			return nil
		}
	}
	if known, exists := c.s.store.get(k, obj); known {
		if !exists {
			return apierrors.NewNotFound(c.resource(k), key.Name)
		}
		return nil
	}
	err = c.s.meter.time(func() error { return c.Client.Get(ctx, c.s.serverKey(gvk.GroupKind(), key), obj, opts...) })
	switch {
	case err == nil:
		c.s.toLocal(gvk.GroupKind(), obj)
		c.s.store.put(k, obj)
		c.s.store.noteRead(k, c.s.clock.Now(), obj)
	case apierrors.IsNotFound(err):
		c.s.store.put(k, nil)
	}
	return err
}

// resource names the resource of a kind for NotFound errors, as the server would.
func (c *Client) resource(k storeKey) schema.GroupResource {
	if m, err := c.RESTMapper().RESTMapping(k.gvk.GroupKind(), k.gvk.Version); err == nil {
		return m.Resource.GroupResource()
	}
	plural, _ := meta.UnsafeGuessKindToResource(k.gvk)
	return plural.GroupResource()
}

// List always asks the API server: the store cannot know what it never saw.
// It lists only this run's objects, under their scenario names.
func (c *Client) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	if err := c.cutOff(); err != nil {
		return err
	}
	gvk, err := apiutil.GVKForObject(list, c.Scheme())
	if err != nil {
		return err
	}
	gk := schema.GroupKind{Group: gvk.Group, Kind: strings.TrimSuffix(gvk.Kind, "List")}
	if err := c.injected(Reads, storeKey{gvk: gk.WithVersion(gvk.Version)}); err != nil {
		return err
	}
	lo := (&client.ListOptions{}).ApplyOptions(opts)
	if lo.Namespace != "" {
		lo.Namespace = c.s.serverKey(gk, types.NamespacedName{Namespace: lo.Namespace}).Namespace
	}
	if err := c.s.meter.time(func() error { return c.Client.List(ctx, list, lo) }); err != nil {
		return err
	}
	if err := c.s.localList(gk, list); err != nil {
		return err
	}
	if lag := c.s.lagOf(c.role, c.actor); lag > 0 {
		return c.s.store.listAsOf(gk.WithVersion(gvk.Version), c.s.clock.Now().Add(-lag), list)
	}
	return nil
}

// Create creates obj and records it.
func (c *Client) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	return c.write(ctx, timeline.VerbCreate, obj, func() error { return c.Client.Create(ctx, obj, opts...) })
}

// Update updates obj and records the change.
func (c *Client) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	return c.write(ctx, timeline.VerbUpdate, obj, func() error { return c.Client.Update(ctx, obj, opts...) })
}

// Patch patches obj and records the change.
func (c *Client) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	return c.write(ctx, timeline.VerbUpdate, obj, func() error { return c.Client.Patch(ctx, obj, patch, opts...) })
}

// Delete deletes obj and records it.
func (c *Client) Delete(ctx context.Context, obj client.Object, opts ...client.DeleteOption) error {
	return c.write(ctx, timeline.VerbDelete, obj, func() error { return c.Client.Delete(ctx, obj, opts...) })
}

// Apply is refused: server-side apply is not recorded by the simulator yet.
func (c *Client) Apply(context.Context, runtime.ApplyConfiguration, ...client.ApplyOption) error {
	return errors.New("opcert simulator: server-side apply is not supported; use Update or Patch")
}

// DeleteAllOf is refused: it would remove objects without recording them.
func (c *Client) DeleteAllOf(context.Context, client.Object, ...client.DeleteAllOfOption) error {
	return errors.New("opcert simulator: DeleteAllOf is not supported; delete objects one by one")
}

// Status returns a writer for the status subresource that records too.
func (c *Client) Status() client.SubResourceWriter { return subResource{c, "status"} }

// SubResource records writes to the status subresource and refuses others.
func (c *Client) SubResource(name string) client.SubResourceClient { return subResource{c, name} }

// write performs one write, stores the server's answer and records the
// change to its conditions and registered fields, failed writes included.
func (c *Client) write(ctx context.Context, verb string, obj client.Object, do func() error) error {
	if err := c.cutOff(); err != nil {
		return err
	}
	k, err := c.key(obj)
	if err != nil {
		return err
	}
	gk := k.gvk.GroupKind()
	if err := c.injected(Writes, k); err != nil {
		// Refused by the API server: nothing changed, so the store stands.
		e := c.event(verb, k)
		e.Failed, e.Detail = true, err.Error()
		c.s.record(ctx, e)
		return err
	}
	before := c.s.store.peek(k)
	if before == nil && verb != timeline.VerbCreate {
		fresh := obj.DeepCopyObject().(client.Object)
		if err := c.s.meter.time(func() error { return c.Client.Get(ctx, c.s.serverKey(gk, k.key), fresh) }); err == nil {
			c.s.toLocal(gk, fresh)
			before = fresh
		}
	}
	// Stamped as it is sent: in real time a process that watches the
	// object may react before the response is back, and its write, seen
	// on the API server, must not come first on the timeline (a reset
	// before the challenge it answers). In virtual time the clock does not
	// move during a call.
	e := c.event(verb, k)
	err = c.s.meter.time(func() error {
		c.s.toServer(gk, obj)
		defer c.s.toLocal(gk, obj)
		return do()
	})
	if err != nil {
		e.Failed, e.Detail = true, err.Error()
		if apierrors.IsConflict(err) || apierrors.IsNotFound(err) || apierrors.IsAlreadyExists(err) {
			c.s.store.forget(k)
		}
		c.s.record(ctx, e)
		return err
	}
	if verb == timeline.VerbCreate {
		// The server may have chosen the name (generateName).
		k.key = client.ObjectKeyFromObject(obj)
		e.Object.Name = k.key.Name
		if gk == namespaceKind && c.s.prefixed(gk, k.key.Name) {
			c.s.ownNamespace(k.key.Name)
		}
	}
	after, seen := obj, obj
	if verb == timeline.VerbDelete {
		after = nil
		if before != nil {
			seen = before
		}
	}
	e.Conditions = timeline.Diff(Conditions(before), Conditions(after))
	c.s.checkStamps(ctx, e)
	e.Fields = fieldChanges(c.s.fieldPaths(k.gvk), before, after)
	c.s.mine(obj.GetResourceVersion())
	if verb == timeline.VerbDelete {
		// Finalizers may keep the object; only the server knows.
		c.s.store.forget(k)
	} else {
		c.s.store.put(k, after)
	}
	c.s.store.note(k, e.Time, after)
	c.s.record(ctx, e, written{k, seen.DeepCopyObject().(client.Object)})
	c.s.wrote(ctx, c.actor, c.role)
	return nil
}

// event is the timeline event of a write by the client, stamped now.
func (c *Client) event(verb string, k storeKey) timeline.Event {
	return timeline.Event{
		Time: c.s.clock.Now(), Actor: c.actor, Role: c.role, Verb: verb,
		Object: timeline.ObjectRef{Kind: k.gvk.Kind, Group: k.gvk.Group, Namespace: k.key.Namespace, Name: k.key.Name},
	}
}
