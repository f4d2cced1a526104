package stackableoperator

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// The labels on every workload, selector and pod template the operator
// makes (Kubernetes' recommended labels): the instance is the cluster,
// the component its role.
const (
	labelInstance  = "app.kubernetes.io/instance"
	labelComponent = "app.kubernetes.io/component"
	labelManagedBy = "app.kubernetes.io/managed-by"
	managedBy      = "example-stackable-operator"
)

// productImage runs in every pod: the product is simulated, and a real
// kubelet needs an image that exists.
const productImage = "registry.k8s.io/pause:3.10"

func (pc *productCluster) labels(role string) map[string]string {
	return map[string]string{labelInstance: pc.name, labelComponent: role, labelManagedBy: managedBy}
}

func (pc *productCluster) ownerRef() metav1.OwnerReference {
	controller := true
	return metav1.OwnerReference{APIVersion: sampleClusters.GroupVersion().String(), Kind: "SampleCluster",
		Name: pc.name, UID: pc.uid, Controller: &controller, BlockOwnerDeletion: &controller}
}

func (pc *productCluster) meta(r roleSpec) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: pc.workloadName(r.Name), Namespace: pc.namespace, Labels: pc.labels(r.Name),
		OwnerReferences: []metav1.OwnerReference{pc.ownerRef()}}
}

func (pc *productCluster) template(r roleSpec) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: pc.labels(r.Name)},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: r.Name, Image: productImage}}}}
}

// replicas is what a role's StatefulSet or Deployment should run: the
// spec's count, or none once the user stopped the cluster.
func (pc *productCluster) replicas(r roleSpec) int32 {
	if pc.stopped() {
		return 0
	}
	return r.Replicas
}

// applyWorkloads makes the cluster's workloads what its spec asks for:
// one per role, scaled to 0 when stopped (a DaemonSet, which cannot
// scale, is deleted), and deletes those of roles that are gone.
func (o *Operator) applyWorkloads(ctx context.Context, pc *productCluster) error {
	want := map[string]string{} // workload name -> kind
	for _, r := range pc.spec.Roles {
		var err error
		switch r.Kind {
		case kindStatefulSet:
			err = o.applyStatefulSet(ctx, pc, r)
		case kindDeployment:
			err = o.applyDeployment(ctx, pc, r)
		case kindDaemonSet:
			if pc.stopped() {
				continue
			}
			err = o.applyDaemonSet(ctx, pc, r)
		}
		if err != nil {
			return err
		}
		want[pc.workloadName(r.Name)] = r.Kind
	}
	return o.deleteUnwanted(ctx, pc, want)
}

func (o *Operator) applyStatefulSet(ctx context.Context, pc *productCluster, r roleSpec) error {
	api := o.kube.AppsV1().StatefulSets(pc.namespace)
	have, err := o.cacheOf(pc.namespace).statefulSets.StatefulSets(pc.namespace).Get(pc.workloadName(r.Name))
	n := pc.replicas(r)
	switch {
	case apierrors.IsNotFound(err):
		sts := &appsv1.StatefulSet{ObjectMeta: pc.meta(r), Spec: appsv1.StatefulSetSpec{Replicas: &n,
			Selector: &metav1.LabelSelector{MatchLabels: pc.labels(r.Name)}, Template: pc.template(r)}}
		_, err = api.Create(ctx, sts, metav1.CreateOptions{})
		return ignoreExists(err)
	case err != nil:
		return err
	case have.Spec.Replicas != nil && *have.Spec.Replicas == n:
		return nil
	}
	sts := have.DeepCopy()
	sts.Spec.Replicas = &n
	_, err = api.Update(ctx, sts, metav1.UpdateOptions{})
	return err
}

func (o *Operator) applyDeployment(ctx context.Context, pc *productCluster, r roleSpec) error {
	api := o.kube.AppsV1().Deployments(pc.namespace)
	have, err := o.cacheOf(pc.namespace).deployments.Deployments(pc.namespace).Get(pc.workloadName(r.Name))
	n := pc.replicas(r)
	switch {
	case apierrors.IsNotFound(err):
		d := &appsv1.Deployment{ObjectMeta: pc.meta(r), Spec: appsv1.DeploymentSpec{Replicas: &n,
			Selector: &metav1.LabelSelector{MatchLabels: pc.labels(r.Name)}, Template: pc.template(r)}}
		_, err = api.Create(ctx, d, metav1.CreateOptions{})
		return ignoreExists(err)
	case err != nil:
		return err
	case have.Spec.Replicas != nil && *have.Spec.Replicas == n:
		return nil
	}
	d := have.DeepCopy()
	d.Spec.Replicas = &n
	_, err = api.Update(ctx, d, metav1.UpdateOptions{})
	return err
}

func (o *Operator) applyDaemonSet(ctx context.Context, pc *productCluster, r roleSpec) error {
	_, err := o.cacheOf(pc.namespace).daemonSets.DaemonSets(pc.namespace).Get(pc.workloadName(r.Name))
	if !apierrors.IsNotFound(err) {
		return err
	}
	ds := &appsv1.DaemonSet{ObjectMeta: pc.meta(r), Spec: appsv1.DaemonSetSpec{
		Selector: &metav1.LabelSelector{MatchLabels: pc.labels(r.Name)}, Template: pc.template(r)}}
	_, err = o.kube.AppsV1().DaemonSets(pc.namespace).Create(ctx, ds, metav1.CreateOptions{})
	return ignoreExists(err)
}

// deleteUnwanted deletes the workloads the cluster controls that want
// (name -> kind) does not hold.
func (o *Operator) deleteUnwanted(ctx context.Context, pc *productCluster, want map[string]string) error {
	sel := labels.SelectorFromSet(labels.Set{labelInstance: pc.name, labelManagedBy: managedBy})
	mine := func(m metav1.Object, kind string) bool {
		ref := metav1.GetControllerOfNoCopy(m)
		return ref != nil && ref.UID == pc.uid && want[m.GetName()] != kind
	}
	apps := o.kube.AppsV1()
	sts, err := o.cacheOf(pc.namespace).statefulSets.StatefulSets(pc.namespace).List(sel)
	if err != nil {
		return err
	}
	for _, w := range sts {
		if mine(w, kindStatefulSet) {
			if err := ignoreGone(apps.StatefulSets(pc.namespace).Delete(ctx, w.Name, metav1.DeleteOptions{})); err != nil {
				return err
			}
		}
	}
	deps, err := o.cacheOf(pc.namespace).deployments.Deployments(pc.namespace).List(sel)
	if err != nil {
		return err
	}
	for _, w := range deps {
		if mine(w, kindDeployment) {
			if err := ignoreGone(apps.Deployments(pc.namespace).Delete(ctx, w.Name, metav1.DeleteOptions{})); err != nil {
				return err
			}
		}
	}
	dss, err := o.cacheOf(pc.namespace).daemonSets.DaemonSets(pc.namespace).List(sel)
	if err != nil {
		return err
	}
	for _, w := range dss {
		if mine(w, kindDaemonSet) {
			if err := ignoreGone(apps.DaemonSets(pc.namespace).Delete(ctx, w.Name, metav1.DeleteOptions{})); err != nil {
				return err
			}
		}
	}
	return nil
}

// ignoreExists: a create the cache had not yet seen succeed is done.
func ignoreExists(err error) error {
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

func ignoreGone(err error) error {
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}
