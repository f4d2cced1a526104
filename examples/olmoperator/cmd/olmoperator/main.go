// Command olmoperator runs the example operator of package olmoperator on
// the wall clock against the cluster of --kubeconfig (or $KUBECONFIG, or
// in-cluster).
//
//	olmoperator --name foo-operator.v1.0.0 --namespace operators --crds foos.example.com
//	olmoperator --name foo-operator.v1.0.0 --namespace operators --crds foos.example.com --channel probe
//	olmoperator ... --lies   # says Upgradeable True while an operand migrates
package main

import (
	"flag"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/go-logr/logr"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/opcert/opcert/examples/olmoperator"
)

func main() {
	name := flag.String("name", "", "the operator's CSV: the name of its Probe and OperatorCondition")
	namespace := flag.String("namespace", "", "the operator's namespace")
	namespaces := flag.String("namespaces", "", "the namespaces of its CRs, comma separated (default: every namespace)")
	crds := flag.String("crds", "", "the CRDs it owns, comma separated: foos.example.com")
	channel := flag.String("channel", olmoperator.ChannelCRs, "how it tells OLM: crs, probe or operatorcondition")
	lies := flag.Bool("lies", false, "report that nothing migrates (a broken operator)")
	flag.Parse()
	if *name == "" || *namespace == "" || *crds == "" {
		fmt.Fprintln(os.Stderr, "olmoperator: give --name, --namespace and --crds")
		os.Exit(2)
	}
	ctrl.SetLogger(logr.FromSlogHandler(slog.NewTextHandler(os.Stderr, nil)))
	opts := olmoperator.Options{Namespace: *namespace, Name: *name, Namespaces: list(*namespaces), Channel: *channel, Lies: *lies}
	cfg, err := ctrl.GetConfig()
	if err == nil {
		var mgr ctrl.Manager
		if mgr, err = olmoperator.NewManager(cfg, list(*crds), opts); err == nil {
			err = mgr.Start(ctrl.SetupSignalHandler())
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "olmoperator:", err)
		os.Exit(1)
	}
}

func list(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}
