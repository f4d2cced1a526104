package apitest

import (
	"context"
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/reference/olm"
)

// The aggregator reads incrementally: its first reconcile lists the CRs of
// each annotated kind once per target namespace; later ones read only the
// CRs Map marked dirty, however many there are.
func TestAggregatorReadsIncrementally(t *testing.T) {
	h := start(t, "olm-incremental")
	h.namespace(h.ns + "-b")
	h.annotate(foos, seedAnnotations)
	for i := range 20 {
		h.foo(h.ns, fmt.Sprintf("foo-%02d", i), "Migrating=False")
		h.foo(h.ns+"-b", fmt.Sprintf("foo-%02d", i), "Migrating=False")
	}
	c := &counting{Client: api.Client}
	a, err := olm.NewAggregator(c, h.clk, olm.AggregatorOptions{Probe: types.NamespacedName{Namespace: h.ns, Name: csv},
		CRDs: []string{foos, bars}, Namespaces: []string{h.ns, h.ns + "-b"}})
	if err != nil {
		t.Fatal(err)
	}
	h.reconcile(a, h.key())
	if c.lists != 2 || c.crGets != 0 {
		t.Errorf("first reconcile: %d lists and %d reads of CRs, want 2 lists (foos in each namespace) and no read", c.lists, c.crGets)
	}
	a.Map(h.ctx, h.foo(h.ns, "foo-03", "Migrating=True"))
	a.Map(h.ctx, h.foo(h.ns+"-b", "foo-07", "Migrating=True"))
	h.reconcile(a, h.key())
	if c.lists != 2 || c.crGets != 2 {
		t.Errorf("after two changes: %d lists and %d reads of CRs in all, want 2 and 2", c.lists, c.crGets)
	}
	p, _ := h.probe()
	if len(p.Status.ProbeResources) != 2 || p.Status.ProbeResources[0].Name != "foo-03" || p.Status.ProbeResources[1].Namespace != h.ns+"-b" {
		t.Errorf("probeResources %+v, want the two migrating CRs", p.Status.ProbeResources)
	}
}

// counting counts the lists, and the reads of Foos, made through it.
type counting struct {
	client.Client
	lists, crGets int
}

func (c *counting) List(ctx context.Context, l client.ObjectList, opts ...client.ListOption) error {
	c.lists++
	return c.Client.List(ctx, l, opts...)
}

func (c *counting) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if obj.GetObjectKind().GroupVersionKind() == fooGVK {
		c.crGets++
	}
	return c.Client.Get(ctx, key, obj, opts...)
}
