package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/opcert/opcert/cluster"
	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/reports"
)

// Cluster mode: opcert run --kubeconfig PATH plays the runs on that
// cluster instead of its own API server, in real time. What it creates
// there is labelled opcert.io/run=<id>, lives in the namespace opcert-<id>
// or is named opcert-<id>-NN-... (cluster-scoped), and is deleted at the
// end, Ctrl-C included, or by the next run after a SIGKILL (cluster.Sweep);
// what it did not create it writes only as listed by the mechanisms
// (conformance.Clustered) and allowed by --allow-disruption. It creates only
// what its kinds allow (cluster_kinds.go): security-sensitive kinds only
// when --allow-disruption=KIND names them.

type clusterFlags struct {
	kubeconfig, context string
	// disruption are the values of --allow-disruption: "true" (the flag
	// alone) lets the run write to objects opcert did not create
	// (allowDisruption); a kind lets its create steps create objects of
	// that kind (allowKinds).
	disruption      []string
	allowDisruption bool
	allowKinds      []cluster.KindName
}

func (c *clusterFlags) add(f *pflag.FlagSet) {
	f.StringVar(&c.kubeconfig, "kubeconfig", "", "run on the cluster of this kubeconfig file instead of opcert's own API server (cluster mode; only this file is read, never $KUBECONFIG)")
	f.StringVar(&c.context, "context", "", "the kubeconfig context to use (default: its current context)")
	f.StringArrayVar(&c.disruption, "allow-disruption", nil, "cluster mode: alone, let the run write to objects opcert did not create (the detector challenging a team's ClusterOperators, steps scaling its Deployments); without it such a run is refused and what it would touch is listed. "+
		"=`KIND` (Kind or Kind.group, repeatable): let the scenarios' create steps create objects of a kind refused by default because it changes the cluster's security or what it serves (RBAC, admission webhooks and policies, CRDs, APIServices, PriorityClasses, kinds that run pods, cluster-scoped kinds no mechanism declares), under the run's names only")
	f.Lookup("allow-disruption").NoOptDefVal = "true"
}

// parse reads the values of --allow-disruption.
func (c *clusterFlags) parse() error {
	c.allowDisruption, c.allowKinds = false, nil
	for _, v := range c.disruption {
		switch v {
		case "true":
			c.allowDisruption = true
		case "false":
			c.allowDisruption = false
		default:
			k, err := cluster.ParseKindName(v)
			if err != nil {
				return fmt.Errorf("--allow-disruption=%s: %w", v, err)
			}
			c.allowKinds = append(c.allowKinds, k)
		}
	}
	return nil
}

func (c *clusterFlags) on() bool { return c.kubeconfig != "" }

// check refuses, before any work, what cannot run where the flags say.
// named says the scenarios were named (files, --scenario): on a cluster
// they must be, since each plays in real time (the 24-hour fleet would
// take 24h times the scale) and not every mechanism can play there.
func (c *clusterFlags) check(plans []plan, named bool) error {
	if err := c.parse(); err != nil {
		return err
	}
	if !c.on() {
		switch {
		case c.context != "":
			return errors.New("--context needs --kubeconfig (cluster mode)")
		case c.allowDisruption || len(c.allowKinds) > 0:
			return errors.New("--allow-disruption is for runs on a cluster: give --kubeconfig too")
		}
		for _, p := range plans {
			if r, s, ok := castHas[conformance.Deployment](p.cast); ok {
				return fmt.Errorf("--subject %s=%s: a Deployment plays its role on a cluster: give --kubeconfig (cluster mode)", r, s)
			}
		}
		return nil
	}
	if !named {
		var can []string
		for _, p := range plans {
			if _, ok := p.m.(conformance.Clustered); ok {
				can = append(can, p.sc.Name)
			}
		}
		return fmt.Errorf("on a cluster, name the scenarios to play (--scenario NAME, or files): each plays in real time, scaled by --time-scale; built-ins that can play on a cluster: %s", strings.Join(can, ", "))
	}
	for _, p := range plans {
		if _, ok := p.m.(conformance.Clustered); !ok {
			return fmt.Errorf("%s: mechanism %s cannot be played on a cluster (its world is simulated by opcert); choose scenarios of a mechanism that can (--scenario, or scenario files)", p.sc.Source, p.m.Name())
		}
		if r, s, ok := castHas[conformance.Process](p.cast); ok {
			return fmt.Errorf("--subject %s=%s: an executable runs against opcert's own API server (process mode); on a cluster, deploy it and give deployment:NAMESPACE/NAME", r, s)
		}
	}
	return nil
}

// clustered is what m says of a run on a cluster: in cluster mode every
// plan's mechanism is Clustered once clusterFlags.check has passed.
func clustered(m conformance.Mechanism) conformance.Clustered { return m.(conformance.Clustered) }

// castHas finds a role of the cast played by a T.
func castHas[T any](cast conformance.Cast) (role, subject string, ok bool) {
	for r, s := range cast {
		if _, ok := s.Impl.(T); ok {
			return r, s.Name, true
		}
	}
	return "", "", false
}

// touches is what the plans would do to objects opcert did not create,
// grouped by object in the order they first appear.
func touches(plans []plan) (objects []cluster.Ref, why map[cluster.Ref][]string) {
	objects, why, _ = touched(plans)
	return objects, why
}

// touched is touches, and the objects the subjects make during the run
// (conformance.Touch.Made), which need not exist when it starts.
func touched(plans []plan) (objects []cluster.Ref, why map[cluster.Ref][]string, made map[cluster.Ref]bool) {
	why, made = map[cluster.Ref][]string{}, map[cluster.Ref]bool{}
	for _, p := range plans {
		for _, t := range clustered(p.m).Touches(p.sc, p.cast) {
			r := cluster.Ref{Kind: t.Kind, Namespace: t.Namespace, Name: t.Name}
			if _, seen := why[r]; !seen {
				objects = append(objects, r)
			}
			why[r] = append(why[r], t.Why)
			if t.Made {
				made[r] = true
			}
		}
	}
	return objects, why, made
}

func printTouches(w io.Writer, plans []plan) {
	objects, why := touches(plans)
	for _, r := range objects {
		fmt.Fprintf(w, "  %s\n", r)
		for _, y := range why[r] {
			fmt.Fprintf(w, "    - %s\n", y)
		}
	}
}

// refuse is the error of a run whose create steps make a kind refused
// whatever its scope (the cluster need not be reached to know), or that
// would touch what opcert did not create without --allow-disruption: it
// lists all of it.
func (c *clusterFlags) refuse(plans []plan) error {
	if !c.on() {
		return nil
	}
	if refused, _ := refusedCreates(c.creations(plans), nil); len(refused) > 0 {
		return c.refusedError(refused)
	}
	if c.allowDisruption {
		return nil
	}
	if objects, _ := touches(plans); len(objects) == 0 {
		return nil
	}
	var b strings.Builder
	printTouches(&b, plans)
	return fmt.Errorf("refusing to run on the cluster of %s without --allow-disruption: the run would write to these objects, which opcert did not create:\n%s"+
		"nothing was written; give --allow-disruption if the cluster may be disrupted (a CI cluster: opcert kind up)", c.kubeconfig, b.String())
}

// printPlan is the dry run's plan, and in cluster mode what it would
// create and touch.
func (c *clusterFlags) printPlan(w io.Writer, plans []plan, skipped []reports.Skipped, out string, scale float64) error {
	if err := printPlan(w, plans, skipped, out, scale); err != nil || !c.on() {
		return err
	}
	c.printCreates(w, plans)
	if objects, _ := touches(plans); len(objects) == 0 {
		_, err := fmt.Fprintln(w, "\non the cluster, the runs write to no object opcert did not create")
		return err
	}
	fmt.Fprintln(w, "\non the cluster, the runs write to these objects opcert did not create (needs --allow-disruption):")
	printTouches(w, plans)
	return nil
}

// realTime says how long runs on a cluster take: they play in real time,
// so the API calls estimated say nothing of it.
func realTime(plans []plan, scale float64) string {
	d, wall := wallTime(plans, scale)
	return fmt.Sprintf("on a cluster the runs play in real time: about %s of wall time (%s of scenarios x --time-scale %g)", wall.Round(time.Second), d, scale)
}

// wallTime is the scenarios' time and the wall time of their runs on a
// cluster, in real time scaled by scale.
func wallTime(plans []plan, scale float64) (scenarios, wall time.Duration) {
	for _, p := range plans {
		scenarios += p.sc.Duration.Duration
	}
	return scenarios, time.Duration(float64(scenarios) * scale)
}
