package apitest

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/discovery"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/apiserver"
	"github.com/opcert/opcert/apiserver/apiservertest"
	"github.com/opcert/opcert/probe"
)

// api is the one API server this package's tests share.
var api *apiserver.Server

func TestMain(m *testing.M) { apiservertest.Main(m, &api) }

// ns is the operator's namespace of every test; each test names its
// Probes and objects after itself.
const ns = "operators"

// clients returns a client whose scheme holds the Probe, and a discovery
// client, on the shared API server, with the namespace ns created.
func clients(t *testing.T) (client.Client, discovery.DiscoveryInterface) {
	t.Helper()
	if api == nil {
		t.Skip("needs the API server")
	}
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, probe.AddToScheme} {
		if err := add(s); err != nil {
			t.Fatal(err)
		}
	}
	c, err := client.New(api.Config, client.Options{Scheme: s})
	if err != nil {
		t.Fatal(err)
	}
	d, err := discovery.NewDiscoveryClientForConfig(api.Config)
	if err != nil {
		t.Fatal(err)
	}
	err = c.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	return c, d
}
