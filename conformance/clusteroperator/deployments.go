package clusteroperator

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/clusteroperator/rules"
	"github.com/opcert/opcert/conformance/player"
	"github.com/opcert/opcert/record"
	"github.com/opcert/opcert/scenarios"
	"github.com/opcert/opcert/sim/timeline"
)

// Cluster mode: a team's Deployment plays each component's operator
// (opcert run --kubeconfig F --subject
// clusteroperator.operator=deployment:NS/{name}-operator), on the
// cluster, in real time; the version operator is the reference, in
// opcert, on the wall clock, writing a ClusterVersion of its own under the
// run's prefix (never the cluster's "version").
//
//   - The team's ClusterOperators keep their names (Scheduler.FixNames),
//     those of the scenario's components only.
//   - The version operator applies no payload manifest of a played
//     component but its operator Deployment, and that by giving the team's
//     Deployment the release's version: a patch of the pod template label
//     opcert.io/version alone, when it differs, so that the cluster's
//     Deployment controller rolls the operator to it (the team's operator
//     reads its version from its own pod's label, by the downward API).
//     A Deployment with no replica is scaled up then, as the payload's
//     would start (a clean installation deploys them at 0). The label's
//     and the replicas' first values are restored at the end. The
//     component's namespaces are not created: its operands live in NS.
//   - The operands are the team's operator's, in NS, run by the cluster's
//     controllers: opcert simulates no pod. stickOperand holds the
//     operand's rollout (held.go: a Deployment paused, a DaemonSet
//     OnDelete, put back at the end); holdNode is skipped, said in the
//     EXPECT case. The admin's ConfigMap
//     "{name}-admin" is opcert's to write in NS (blockUpgrade), created
//     if missing (and then deleted at the end) or restored at the end.
//   - Recording: the ClusterOperators by conformance.Feed; the Deployments,
//     DaemonSets, Pods and ConfigMaps of each NS by a recorder of that
//     namespace (FeedNamespace), filed under the namespace of their
//     component, as the rules read them (rules/doc.go: X's operands and
//     pods are in namespace X). A write not the run's own to a component's
//     ClusterOperator or operands is its operator's, but for a status
//     written by the cluster's controllers; pods are the cluster's.
//   - killOperator scales the Deployment to 0, restartOperator back
//     (conformance.Deployments), both process events on the timeline; a
//     rollout the label starts is the cluster's, not one.

// clusterActor names the cluster's own controllers (the Deployment
// controller, the kubelet), whose writes to a component's world no rule
// judges.
const clusterActor = "cluster"

// deploys is what the world does on a cluster besides playing the
// operators (package player): the version label, the admin's blockers,
// the recording of the team's namespaces.
type deploys struct {
	w    *world
	play *player.Player // the operators' (set before w.play: restore may run without it)
	// operands and admins name, per namespace of the team's Deployments,
	// each operand and admin ConfigMap's component.
	operands, admins map[string]map[string]string

	mu sync.Mutex
	// found is what the run first found of what it writes, restored at
	// the end: each component's version label, each admin's blocker.
	labels, blockers map[string]found
	// held are the operands whose rollout stickOperand holds (held.go).
	held map[types.NamespacedName]heldOperand
}

// found is a map entry as the run found it: absent, or its value.
type found struct {
	value string
	set   bool
}

// clusterMode is what the player needs of the operators' Deployments:
// the team's ClusterOperators are recorded cluster-wide, each write the
// operator's of the ClusterOperator written; the rest of each component's
// world by a recorder of its namespace (deploys.file). A Deployment found
// running when the version operator reaches it starts then.
func (w *world) clusterMode() player.Mode {
	return player.Mode{Prepare: w.prepareCluster, Feed: player.Recording(recordedFields, ClusterOperatorGVK), RecordFound: true,
		Who: func(_ context.Context, obj client.Object, e *timeline.Event) {
			e.Actor, e.Role = OperatorActor(obj.GetName()), RoleOperator
		}}
}

func (w *world) prepareCluster(ctx context.Context, play *player.Player) error {
	st := w.st
	operands, admins, err := layout(w.spec, play.Key)
	if err != nil {
		return err
	}
	p := &deploys{w: w, play: play, operands: operands, admins: admins, labels: map[string]found{}, blockers: map[string]found{},
		held: map[types.NamespacedName]heldOperand{}}
	w.deploys = p
	var names, teams []string
	for _, c := range w.spec.Components {
		names, teams = append(names, c.Name), append(teams, play.Key(c.Name).Name)
	}
	// The team's objects reach the API server as named: its
	// ClusterOperators, and its Deployments, which the version operator
	// patches through its recorded client.
	st.Sched.FixNames(ClusterOperatorGVK.GroupKind(), names...)
	st.Sched.FixNames(DeploymentGVK.GroupKind(), teams...)
	// And the operands, which stickOperand holds through the scenario's
	// recorded client.
	for _, c := range w.spec.Components {
		for _, od := range c.Operands {
			st.Sched.FixNames(schema.GroupKind{Group: "apps", Kind: od.Kind}, od.Name)
		}
	}
	for ns := range p.operands {
		sink := func(ctx context.Context) record.Sink { return p.file(ctx, ns) }
		if err := conformance.FeedNamespace(ctx, st, player.Recording(recordedFields, DeploymentGVK, DaemonSetGVK, PodGVK, ConfigMapGVK), ns, sink); err != nil {
			return err
		}
	}
	// At the run's end, before its Deployments are scaled back.
	st.Go(func(ctx context.Context) {
		<-ctx.Done()
		p.restore()
	})
	return nil
}

// layout names, per namespace of the team's Deployments, the component
// of each operand and admin ConfigMap; components whose Deployments share
// a namespace must not share an operand's name, nor name one as a
// Deployment of theirs.
func layout(w *World, key func(component string) types.NamespacedName) (operands, admins map[string]map[string]string, err error) {
	operands, admins = map[string]map[string]string{}, map[string]map[string]string{}
	teams := map[string]string{} // "namespace/name" of each team Deployment -> its component
	for _, c := range w.Components {
		key := key(c.Name)
		teams[key.String()] = c.Name
		if operands[key.Namespace] == nil {
			operands[key.Namespace], admins[key.Namespace] = map[string]string{}, map[string]string{}
		}
		admins[key.Namespace][adminConfigMap(c.Name)] = c.Name
	}
	for _, c := range w.Components {
		ns := key(c.Name).Namespace
		for _, od := range c.Operands {
			other := ""
			if x, taken := operands[ns][od.Name]; taken {
				other = "an operand of component " + x
			}
			if x, ok := teams[ns+"/"+od.Name]; ok && od.Kind == DeploymentGVK.Kind {
				other = "the operator Deployment of component " + x
			}
			if other != "" {
				return nil, nil, fmt.Errorf("%s: operand %s of component %s is also %s in namespace %s: on a cluster, the components whose Deployments share a namespace need objects of distinct names",
					Name, od.Name, c.Name, other, ns)
			}
			operands[ns][od.Name] = c.Name
		}
	}
	return operands, admins, nil
}

// file files a write seen in the team's namespace ns under the namespace
// of its component, as the rules read it, or drops it when it is none of
// the scenario's (the operators' own Deployments and pods, others').
func (p *deploys) file(ctx context.Context, ns string) record.Sink {
	return func(e timeline.Event, obj *unstructured.Unstructured) error {
		if obj == nil {
			if e.Verb == timeline.VerbLost || e.Verb == timeline.VerbResumed {
				p.w.st.Sched.ObserveEvent(ctx, e)
			}
			return nil
		}
		component, actor, role := p.whose(ns, e, obj)
		if component == "" {
			return nil
		}
		if e.Actor != record.RecorderActor { // what was there before the run is no one's
			e.Actor, e.Role = actor, role
		}
		e.Object.Namespace = component
		p.w.st.Sched.ObserveEvent(ctx, e)
		return nil
	}
}

// whose is the component of an object of namespace ns, and who wrote e.
func (p *deploys) whose(ns string, e timeline.Event, obj *unstructured.Unstructured) (component, actor, role string) {
	switch e.Object.Kind {
	case ConfigMapGVK.Kind:
		return p.admins[ns][obj.GetName()], timeline.RoleScenario, timeline.RoleScenario
	case DeploymentGVK.Kind, DaemonSetGVK.Kind:
		component = p.operands[ns][obj.GetName()]
		if e.Verb == timeline.VerbUpdateStatus {
			return component, clusterActor, roleWorkload
		}
		return component, OperatorActor(component), RoleOperator
	case PodGVK.Kind:
		return p.operands[ns][rules.PodOperand(obj.GetLabels())], clusterActor, roleWorkload
	}
	return "", "", ""
}

// apply is the version operator's Applier: it takes the payload's
// namespaces and operator Deployment of each component, which the team
// deployed, and gives that Deployment the release's version.
func (p *deploys) apply(ctx context.Context, u *unstructured.Unstructured) (bool, error) {
	for _, c := range p.w.spec.Components {
		switch {
		case u.GetKind() == "Namespace" && (u.GetName() == c.Name || u.GetName() == operatorNamespace(c.Name)):
			return true, nil
		case u.GetKind() == DeploymentGVK.Kind && u.GetNamespace() == operatorNamespace(c.Name) && u.GetName() == operatorDeployment(c.Name):
			v, _, err := unstructured.NestedString(u.Object, "spec", "template", "metadata", "labels", versionLabel)
			if err != nil {
				return true, err
			}
			return true, p.deploy(ctx, c.Name, v)
		}
	}
	return false, nil
}

// deploy sets the version of component's Deployment to v and starts it
// if it has no replica (unless a step killed it).
func (p *deploys) deploy(ctx context.Context, component, v string) error {
	play := p.play
	key := play.Key(component)
	if _, err := play.Attach(ctx, component); err != nil {
		return err
	}
	c := p.w.st.Sched.Client(p.w.st.API, versionOperatorActor, RoleVersionOperator)
	dep := &appsv1.Deployment{}
	if err := c.Get(ctx, key, dep); err != nil {
		return err
	}
	have, set := dep.Spec.Template.Labels[versionLabel]
	p.mu.Lock()
	if _, seen := p.labels[component]; !seen {
		p.labels[component] = found{have, set}
	}
	p.mu.Unlock()
	if !set || have != v {
		if err := c.Patch(ctx, dep, labelPatch(&v)); err != nil {
			return err
		}
	}
	return play.Start(ctx, component)
}

// labelPatch sets the version label of a pod template (nil removes it),
// and nothing else.
func labelPatch(v *string) client.Patch {
	data, _ := json.Marshal(map[string]any{"spec": map[string]any{"template": map[string]any{"metadata": map[string]any{
		"labels": map[string]any{versionLabel: v}}}}})
	return client.RawPatch(types.MergePatchType, data)
}

// SetBlocker writes the admin's blocker of component in the namespace of
// its Deployment ("" clears it), remembering what was there first.
func (p *deploys) SetBlocker(ctx context.Context, component, message string) error {
	key := client.ObjectKey{Namespace: p.play.Key(component).Namespace, Name: adminConfigMap(component)}
	cm := &corev1.ConfigMap{}
	err := p.w.st.API.Get(ctx, key, cm)
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	p.mu.Lock()
	if _, seen := p.blockers[component]; !seen && err == nil {
		have, set := cm.Data[blockerKey]
		p.blockers[component] = found{have, set}
	}
	p.mu.Unlock()
	if err != nil {
		cm = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}, Data: map[string]string{blockerKey: message}}
		return p.w.st.API.Create(ctx, cm) // the run's own, deleted with what it created
	}
	if cm.Data == nil {
		cm.Data = map[string]string{}
	}
	cm.Data[blockerKey] = message
	return p.w.st.API.Update(ctx, cm)
}

// restoreTimeout bounds restore, which runs once the run's context is
// gone (Ctrl-C too).
const restoreTimeout = 20 * time.Second

// restore puts back the operands' rollouts the run held, the version
// labels and the blockers the run changed on the team's objects, as it first found them; the report says so with
// each Deployment (player.Player.Note).
func (p *deploys) restore() {
	ctx, cancel := context.WithTimeout(context.Background(), restoreTimeout)
	defer cancel()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.release(ctx)
	for component, f := range p.labels {
		var v *string
		was := "removed (it had none)"
		if f.set {
			v, was = &f.value, "restored to "+f.value
		}
		key := p.play.Key(component)
		dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}}
		note := fmt.Sprintf("its pod template label %s %s at the end of the run", versionLabel, was)
		// Back to its replicas first: a Deployment found at 0 must not
		// run the old version, even briefly (its operator would roll its
		// operands back).
		err := p.play.Restore(ctx, component)
		if err == nil {
			err = p.w.st.API.Patch(ctx, dep, labelPatch(v))
		}
		if err != nil {
			note = fmt.Sprintf("its pod template label %s NOT %s: %v", versionLabel, was, err)
		}
		p.play.Note(component, note)
	}
	for component, f := range p.blockers {
		cm := &corev1.ConfigMap{}
		key := client.ObjectKey{Namespace: p.play.Key(component).Namespace, Name: adminConfigMap(component)}
		err := p.w.st.API.Get(ctx, key, cm)
		if err == nil {
			if cm.Data == nil {
				cm.Data = map[string]string{}
			}
			if f.set {
				cm.Data[blockerKey] = f.value
			} else {
				delete(cm.Data, blockerKey)
			}
			err = p.w.st.API.Update(ctx, cm)
		}
		if err != nil {
			p.play.Note(component, fmt.Sprintf("ConfigMap %s NOT restored: %v", key, err))
		}
	}
}

// The ClusterRoles of config/rbac/opcert-cluster-components.yaml.
const (
	roleVersion    = "opcert-cluster-version"    // bound cluster-wide: the run's ClusterVersion
	roleComponents = "opcert-cluster-components" // bound in each namespace of the team's Deployments
)

// touches lists what a scenario played by the team's Deployments writes
// on the cluster that opcert did not create (conformance.Touch): each
// component's Deployment (its version label, its scale) and the admin's
// ConfigMap a blocker step writes. The version operator writes no
// ClusterOperator. Nothing is touched by opcert's own operators, which
// cannot play on a cluster (build refuses them).
func touches(sc *scenarios.Scenario, cast conformance.Cast) []conformance.Touch {
	spec, ok := cast[RoleOperator].Impl.(conformance.Deployment)
	if !ok {
		return nil
	}
	w := scenarioWorld(sc)
	var out []conformance.Touch
	dep := func(component, why string) {
		key := spec.For(component)
		out = append(out, conformance.Touch{Kind: DeploymentGVK.GroupKind(), Namespace: key.Namespace, Name: key.Name, Why: why})
	}
	for _, c := range w.Components {
		dep(c.Name, fmt.Sprintf("%s: when the version operator reaches component %s, it sets the pod template label %s to %s (a patch of that label alone, so that the cluster rolls the operator to it) and scales it to 1 if it has no replica; label and replicas restored at the end",
			sc.Name, c.Name, versionLabel, w.Release))
	}
	for _, st := range sc.Steps {
		switch st.Action {
		case actUpgrade:
			for _, c := range w.Components {
				dep(c.Name, fmt.Sprintf("%s: step upgrade at +%s: the version operator sets its label %s to %s when it reaches component %s", sc.Name, st.Time, versionLabel, st.Arg, c.Name))
			}
		case actKill, actRestart:
			name := st.Arg.(string)
			dep(name, fmt.Sprintf("%s: step %s %s at +%s scales it to 0%s", sc.Name, st.Action, name, st.Time, map[bool]string{true: " and back"}[st.Action == actRestart]))
		case actStick:
			s := st.Arg.(*StickOperand)
			key := spec.For(s.Component)
			out = append(out, conformance.Touch{Kind: schema.GroupKind{Group: "apps", Kind: operandKind(w, s)}, Namespace: key.Namespace, Name: s.Operand,
				Made: true,
				Why:  fmt.Sprintf("%s: step stickOperand at +%s holds its rollouts (a Deployment's spec.paused set, a DaemonSet's spec.updateStrategy OnDelete), so that its pods stay at the version they run; put back as found at the end", sc.Name, st.Time)})
		case actBlock, actUnblock:
			name, _ := st.Arg.(string)
			if b, ok := st.Arg.(*BlockUpgrade); ok {
				name = b.Component
			}
			out = append(out, conformance.Touch{Kind: ConfigMapGVK.GroupKind(), Namespace: spec.For(name).Namespace, Name: adminConfigMap(name),
				Why: fmt.Sprintf("%s: step %s at +%s writes the admin's upgrade blocker of %s (data.%s); created if missing, and then deleted at the end, else restored", sc.Name, st.Action, st.Time, name, blockerKey)})
		}
	}
	return out
}

// access is the rights a scenario played by the team's Deployments needs
// beyond the ClusterOperators' and the Deployments' scale: the run's
// ClusterVersion (listed by the next run's sweep), and in each namespace of the Deployments, the
// Deployments' version label and the recording of the components' world.
func access(sc *scenarios.Scenario, cast conformance.Cast) []conformance.Access {
	spec, ok := cast[RoleOperator].Impl.(conformance.Deployment)
	if !ok {
		return nil
	}
	out := []conformance.Access{
		{Kind: ClusterVersionGVK, Verbs: []string{"get", "list", "create", "update", "delete"}, Role: roleVersion},
		{Kind: ClusterVersionGVK, Subresource: "status", Verbs: []string{"update"}, Role: roleVersion},
	}
	seen := map[string]bool{}
	for _, c := range scenarioWorld(sc).Components {
		ns := spec.For(c.Name).Namespace
		if seen[ns] {
			continue
		}
		seen[ns] = true
		out = append(out,
			conformance.Access{Kind: DeploymentGVK, Namespace: ns, Verbs: []string{"get", "list", "watch", "patch"}, Role: roleComponents},
			conformance.Access{Kind: DaemonSetGVK, Namespace: ns, Verbs: []string{"list", "watch"}, Role: roleComponents},
			conformance.Access{Kind: PodGVK, Namespace: ns, Verbs: []string{"list", "watch"}, Role: roleComponents},
			conformance.Access{Kind: ConfigMapGVK, Namespace: ns, Verbs: []string{"get", "list", "watch", "create", "update", "delete"}, Role: roleComponents})
	}
	for _, st := range sc.Steps {
		// Holding a DaemonSet's rollout patches it (a Deployment's is patched with the rights above).
		if s, ok := st.Arg.(*StickOperand); ok && st.Action == actStick && operandKind(scenarioWorld(sc), s) == DaemonSetGVK.Kind {
			out = append(out, conformance.Access{Kind: DaemonSetGVK, Namespace: spec.For(s.Component).Namespace, Verbs: []string{"get", "patch"}, Role: roleComponents})
		}
	}
	return out
}

// operandKind is the kind of the operand a stickOperand step names.
func operandKind(w *World, s *StickOperand) string {
	for _, c := range w.Components {
		for _, od := range c.Operands {
			if c.Name == s.Component && od.Name == s.Operand {
				return od.Kind
			}
		}
	}
	return DeploymentGVK.Kind
}
