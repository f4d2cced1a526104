package certify_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/opcert/opcert/apiserver"
	"github.com/opcert/opcert/examples/staleoperator"
)

// teamEnv is the API server of this package's tests, started as a team
// starts its envtest: plain envtest, without opcert's CRDs, which certify
// installs when it attaches.
var teamEnv *rest.Config

const coCRD = "clusteroperators.config.openshift.io"

func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		// The examples need the API server too: skipped, like the tests.
		skip := "^Example"
		if given := flag.Lookup("test.skip").Value.String(); given != "" {
			skip = given + "|" + skip
		}
		if err := flag.Set("test.skip", skip); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		os.Exit(m.Run())
	}
	assets, err := apiserver.FindAssets(context.Background(), os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "these tests need kube-apiserver and etcd (run `make envtest`):", err)
		os.Exit(2)
	}
	env := &envtest.Environment{BinaryAssetsDirectory: assets}
	if teamEnv, err = env.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "starting envtest:", err)
		os.Exit(2)
	}
	code := m.Run()
	if present, err := hasCRD(teamEnv); code == 0 && (err != nil || !present) {
		fmt.Fprintln(os.Stderr, "certify did not install the ClusterOperator CRD on the team's envtest:", err)
		code = 1
	}
	_ = env.Stop()
	os.Exit(code)
}

func hasCRD(cfg *rest.Config) (bool, error) {
	s := runtime.NewScheme()
	if err := apiextensionsv1.AddToScheme(s); err != nil {
		return false, err
	}
	c, err := client.New(cfg, client.Options{Scheme: s})
	if err != nil {
		return false, err
	}
	err = c.Get(context.Background(), types.NamespacedName{Name: coCRD}, &apiextensionsv1.CustomResourceDefinition{})
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	return err == nil, err
}

func config() *rest.Config { return teamEnv }

// operator is the example operator on the run's clock.
func operator(c client.Client, clk clock.PassiveClock, name string) reconcile.Reconciler {
	return staleoperator.NewReconciler(c, clk, name, staleoperator.Options{})
}
