package sim

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/sim/timeline"
)

// subResource writes the status subresource through the recording client
// and refuses everything else, so nothing reaches the server unrecorded.
type subResource struct {
	c    *Client
	name string
}

func (w subResource) refuse(op string) error {
	return fmt.Errorf("opcert simulator: %s of subresource %q is not supported", op, w.name)
}

func (w subResource) Get(context.Context, client.Object, client.Object, ...client.SubResourceGetOption) error {
	return w.refuse("get")
}

func (w subResource) Create(context.Context, client.Object, client.Object, ...client.SubResourceCreateOption) error {
	return w.refuse("create")
}

func (w subResource) Update(ctx context.Context, obj client.Object, opts ...client.SubResourceUpdateOption) error {
	if w.name != "status" {
		return w.refuse("update")
	}
	return w.c.write(ctx, timeline.VerbUpdateStatus, obj, func() error {
		return w.c.Client.Status().Update(ctx, obj, opts...)
	})
}

func (w subResource) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
	if w.name != "status" {
		return w.refuse("patch")
	}
	return w.c.write(ctx, timeline.VerbUpdateStatus, obj, func() error {
		return w.c.Client.Status().Patch(ctx, obj, patch, opts...)
	})
}

func (w subResource) Apply(context.Context, runtime.ApplyConfiguration, ...client.SubResourceApplyOption) error {
	return w.refuse("apply")
}
