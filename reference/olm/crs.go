package olm

import (
	"context"
	"fmt"
	"maps"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/probe"
)

// judge brings the CRs in memory up to date and judges them against the
// spec's probe resources (specified, and as compiled): the kinds not
// listed yet are listed in each target namespace, the dirty CRs of the
// others read again, and the CRs whose conditions or spec changed judged
// again. Only CRs with a reason are returned. A probe resource whose CRD is not an owned one,
// or does not exist, has no CRs: the aggregator has the operator's rights
// (002 §Example Workflow), not more.
func (a *Aggregator) judge(ctx context.Context, crds []CRD, specified []probe.Resource, resources []Resource) ([]Entry, error) {
	byName := map[string]CRD{}
	for _, c := range crds {
		byName[c.Name] = c
	}
	type use struct {
		index int
		crd   CRD
	}
	uses := map[schema.GroupKind]use{}
	for i, r := range resources {
		if c, ok := byName[r.Name]; ok {
			if _, dup := uses[c.GVK().GroupKind()]; !dup {
				uses[c.GVK().GroupKind()] = use{i, c}
			}
		}
	}

	if err := a.readDirty(ctx, crds); err != nil {
		return nil, err
	}
	for _, gk := range slices.SortedFunc(maps.Keys(uses), func(x, y schema.GroupKind) int {
		return uses[x].index - uses[y].index
	}) {
		if !a.listed[gk] {
			if err := a.list(ctx, uses[gk].crd); err != nil {
				return nil, err
			}
		}
	}

	judged := fmt.Sprintf("%s %+v", a.o.Reading, specified)
	for _, u := range uses {
		judged += fmt.Sprintf(" %s=%s", u.crd.Name, u.crd.GVK())
	}
	stale := judged != a.judged
	a.judged = judged

	var entries []Entry
	for k, m := range a.crs {
		u, ok := uses[k.gk]
		if !ok {
			continue
		}
		if stale || !m.fresh {
			m.verdict, m.fresh = Judge(resources[u.index], m.conds, a.o.Reading, a.o.Flaw), true
		}
		if len(m.verdict.Reasons) > 0 { // Status lists no other
			entries = append(entries, Entry{Resource: u.index, Kind: u.crd.Plural, Namespace: k.namespace, Name: k.name, Verdict: m.verdict})
		}
	}
	return entries, nil
}

// readDirty reads again the CRs Map marked dirty, of the kinds already
// listed (a kind listed later is read whole then).
func (a *Aggregator) readDirty(ctx context.Context, crds []CRD) error {
	a.dirtyMu.Lock()
	dirty := a.dirty
	a.dirty = map[crKey]bool{}
	a.dirtyMu.Unlock()
	versions := map[schema.GroupKind]string{}
	for _, c := range crds {
		versions[c.GVK().GroupKind()] = c.Version
	}
	for k := range dirty {
		v, ok := versions[k.gk]
		if !ok || !a.listed[k.gk] {
			continue
		}
		u, err := get(ctx, a.client, k.gk.WithVersion(v), client.ObjectKey{Namespace: k.namespace, Name: k.name})
		if err != nil {
			// Read again next time.
			a.dirtyMu.Lock()
			a.dirty[k] = true
			a.dirtyMu.Unlock()
			return err
		}
		if u == nil {
			delete(a.crs, k)
			continue
		}
		a.remember(k, u)
	}
	return nil
}

// list reads every CR of the CRD's kind in each target namespace.
func (a *Aggregator) list(ctx context.Context, crd CRD) error {
	gk := crd.GVK().GroupKind()
	for _, ns := range a.namespaces {
		l := &unstructured.UnstructuredList{}
		l.SetGroupVersionKind(crd.GVK().GroupVersion().WithKind(crd.Kind + "List"))
		if err := a.client.List(ctx, l, client.InNamespace(ns)); err != nil {
			if apierrors.IsNotFound(err) {
				continue
			}
			return err
		}
		for i := range l.Items {
			a.remember(crKey{gk, ns, l.Items[i].GetName()}, &l.Items[i])
		}
	}
	a.listed[gk] = true
	return nil
}

// remember keeps the type and status of each of the CR's conditions, in
// order: what Judge reads.
func (a *Aggregator) remember(k crKey, u *unstructured.Unstructured) {
	raw, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	conds := make([]metav1.Condition, 0, len(raw))
	for _, r := range raw {
		m, _ := r.(map[string]any)
		t, _ := m["type"].(string)
		s, _ := m["status"].(string)
		conds = append(conds, metav1.Condition{Type: t, Status: metav1.ConditionStatus(s)})
	}
	if m, ok := a.crs[k]; ok && slices.Equal(m.conds, conds) {
		return
	}
	a.crs[k] = &crMemo{conds: conds}
}
