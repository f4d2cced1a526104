package cluster

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// unrecordedDeadline is how long after it started a run whose record
// names no deadline (one of an older opcert) is taken for dead.
const unrecordedDeadline = 24 * time.Hour

// Sweep deletes what dead runs left on the cluster (a run killed outright
// cannot clean up): for each run whose namespaces carry RunLabel and
// whose record says it is over (Record.Dead), the objects of the kinds
// its record names that carry its label and its name, then its
// namespaces, its record last. A run without a record (deleted last, so
// its cleanup was under way) is over. Nothing without the run's label
// and name is deleted, whoever labelled it. It says what it deleted and
// what it could not, one line each; a run still alive is left alone. A
// record that keeps the replicas of Deployments is kept (said), for
// they are to be restored by hand.
func Sweep(ctx context.Context, c client.Client, self Owner, now time.Time) ([]string, error) {
	var nss corev1.NamespaceList
	if err := c.List(ctx, &nss, client.HasLabels{RunLabel}); err != nil {
		return nil, fmt.Errorf("listing the namespaces of earlier runs (label %s): %w", RunLabel, err)
	}
	runs := map[string][]corev1.Namespace{}
	for _, ns := range nss.Items {
		id := ns.Labels[RunLabel]
		if strings.HasPrefix(ns.Name, RunNamespace(id)) {
			runs[id] = append(runs[id], ns)
		}
	}
	var out []string
	for _, id := range slices.Sorted(maps.Keys(runs)) {
		out = append(out, sweepRun(ctx, c, id, runs[id], self, now)...)
	}
	return out, nil
}

// sweepRun sweeps run id, whose namespaces are nss, if it is over.
func sweepRun(ctx context.Context, c client.Client, id string, nss []corev1.Namespace, self Owner, now time.Time) []string {
	recordAt := slices.IndexFunc(nss, func(ns corev1.Namespace) bool { return ns.Name == RunNamespace(id) })
	why := "its record is gone (its cleanup was under way)"
	var rec Record
	if recordAt >= 0 {
		record := nss[recordAt]
		if record.DeletionTimestamp != nil {
			return nil // being deleted: the run or a sweep finished with it
		}
		var err error
		if rec, err = readRecord(id, &record); err != nil {
			if rec.Started.IsZero() {
				return []string{fmt.Sprintf("run %s: not swept: its record (namespace %s) cannot be read: %v", id, record.Name, err)}
			}
			rec.Deadline = rec.Started.Add(unrecordedDeadline)
		}
		if why = rec.Dead(self, now); why == "" {
			return nil
		}
		// The record goes last: a sweep cut short is done again.
		nss = append(slices.Delete(slices.Clone(nss), recordAt, recordAt+1), record)
	}
	var deleted, out []string
	for _, gk := range rec.Kinds {
		d, problems := sweepKind(ctx, c, id, gk)
		deleted, out = append(deleted, d...), append(out, problems...)
	}
	for i, ns := range nss {
		if i == len(nss)-1 && recordAt >= 0 && (len(out) > 0 || hasReplicas(rec)) {
			out = append(out, fmt.Sprintf("run %s: namespace %s kept: %s", id, ns.Name, keptWhy(rec, out)))
			break
		}
		if ns.DeletionTimestamp != nil {
			continue
		}
		if err := c.Delete(ctx, &ns, client.PropagationPolicy("Background")); err != nil && !apierrors.IsNotFound(err) {
			out = append(out, fmt.Sprintf("run %s: namespace %s not deleted: %v", id, ns.Name, err))
			continue
		}
		deleted = append(deleted, "Namespace "+ns.Name)
	}
	if len(deleted) > 0 {
		out = append([]string{fmt.Sprintf("swept run %s (%s): deleted %s", id, why, strings.Join(deleted, ", "))}, out...)
	}
	return out
}

func hasReplicas(r Record) bool { return len(r.Replicas) > 0 }

func keptWhy(r Record, problems []string) string {
	if len(problems) > 0 {
		return "it records what the run left"
	}
	var deps []string
	for _, k := range slices.Sorted(maps.Keys(r.Replicas)) {
		deps = append(deps, fmt.Sprintf("%s to %d", k, r.Replicas[k]))
	}
	return fmt.Sprintf("the run may have scaled Deployments: scale them back by hand (%s), then delete it", strings.Join(deps, ", "))
}

// sweepKind deletes the objects of kind gk that carry run id's label and
// name.
func sweepKind(ctx context.Context, c client.Client, id string, gk schema.GroupKind) (deleted, problems []string) {
	m, err := c.RESTMapper().RESTMapping(gk)
	if meta.IsNoMatchError(err) {
		return nil, nil // no longer served: nothing of it is left
	}
	if err != nil {
		return nil, []string{fmt.Sprintf("run %s: cannot sweep its %s: %v", id, KindString(gk), err)}
	}
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(m.GroupVersionKind.GroupVersion().WithKind(gk.Kind + "List"))
	if err := c.List(ctx, list, client.MatchingLabels{RunLabel: id}); err != nil {
		return nil, []string{fmt.Sprintf("run %s: cannot list its %s: %v (kubectl delete %s -l %s=%s)", id, KindString(gk), err, m.Resource.Resource, RunLabel, id)}
	}
	for i := range list.Items {
		it := &list.Items[i]
		r := Ref{Kind: gk, Namespace: it.GetNamespace(), Name: it.GetName()}
		if !strings.HasPrefix(it.GetName(), RunNamespace(id)) {
			continue // labelled by someone else: not the run's
		}
		if err := c.Delete(ctx, it, client.PropagationPolicy("Background")); err != nil && !apierrors.IsNotFound(err) {
			problems = append(problems, fmt.Sprintf("run %s: %s not deleted: %v", id, r, err))
			continue
		}
		deleted = append(deleted, r.String())
	}
	return deleted, problems
}
