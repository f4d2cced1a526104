package workload

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// The statuses the controllers publish, counted from the pods as the
// upstream controllers count them (pkg/controller/deployment sync.go
// calculateStatus, daemon updateDaemonSetStatus, statefulset
// computeReplicaStatus and completeRollingUpdate), with minReadySeconds 0:
// a ready pod is available at once. A Deployment's conditions are
// DeploymentConditions'; the other kinds' controllers set none.

// active tells whether a pod counts for its replica set: not terminated.
func active(p Pod) bool { return p.Phase != corev1.PodFailed && p.Phase != corev1.PodSucceeded }

// DeploymentStatus is a Deployment's status over its pods. Every pod
// stands for one replica its replica sets ask for (unavailable counts
// them), and the active ones are its replicas; updated are the active
// pods of the current template.
func DeploymentStatus(generation int64, hash string, pods []Pod) appsv1.DeploymentStatus {
	ready := int32(count(pods, func(p Pod) bool { return p.Ready }))
	return appsv1.DeploymentStatus{
		ObservedGeneration:  generation,
		Replicas:            int32(count(pods, active)),
		UpdatedReplicas:     int32(count(pods, func(p Pod) bool { return active(p) && p.Hash == hash })),
		ReadyReplicas:       ready,
		AvailableReplicas:   ready,
		UnavailableReplicas: max(0, int32(len(pods))-ready),
	}
}

// DaemonSetStatus is a DaemonSet's status over its pods on nodes, every
// node being one it should run on (held nodes too: they are nodes that
// do not update, not nodes it leaves).
func DaemonSetStatus(generation int64, hash string, nodes []string, pods []Pod) appsv1.DaemonSetStatus {
	byNode := map[string]Pod{}
	for _, p := range pods {
		byNode[p.Node] = p
	}
	st := appsv1.DaemonSetStatus{ObservedGeneration: generation, DesiredNumberScheduled: int32(len(nodes))}
	for _, n := range nodes {
		p, ok := byNode[n]
		if !ok {
			continue
		}
		st.CurrentNumberScheduled++
		if p.Ready {
			st.NumberReady++
			st.NumberAvailable++
		}
		if p.Hash == hash {
			st.UpdatedNumberScheduled++
		}
	}
	st.NumberUnavailable = st.DesiredNumberScheduled - st.NumberAvailable
	return st
}

// StatefulSetStatus is a StatefulSet's status over its pods. Revisions
// are named <set>-<hash>; current is the revision the status named
// before ("" at first: the update revision), and moves to the update
// revision once every replica is updated and ready.
func StatefulSetStatus(generation int64, set string, replicas int, hash, current string, pods []Pod) appsv1.StatefulSetStatus {
	update := set + "-" + hash
	if current == "" {
		current = update
	}
	st := appsv1.StatefulSetStatus{ObservedGeneration: generation, CurrentRevision: current, UpdateRevision: update}
	for _, p := range pods {
		st.Replicas++
		if p.Ready && p.Phase == corev1.PodRunning {
			st.ReadyReplicas++
			st.AvailableReplicas++
		}
		rev := set + "-" + p.Hash
		if rev == current {
			st.CurrentReplicas++
		}
		if rev == update {
			st.UpdatedReplicas++
		}
	}
	if r := int32(replicas); st.UpdatedReplicas == r && st.ReadyReplicas == r && st.Replicas == r {
		st.CurrentReplicas, st.CurrentRevision = st.UpdatedReplicas, update
	}
	return st
}
