package apiserver

import (
	"fmt"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/opcert/opcert/fixtures"
	"github.com/opcert/opcert/redact"
	"github.com/opcert/opcert/sim"
)

// Attach readies an API server someone else runs (a team's envtest, reached
// through cfg) for runs, as Start readies its own: the fixtures' CRDs
// installed through envtest as Start installs them (an existing one is
// updated to the pinned version), and a client with opcert's scheme and no
// client-side rate limit. The server is the caller's to stop; the CRDs stay.
func Attach(cfg *rest.Config) (client.Client, error) {
	crds, err := fixtures.CRDs()
	if err != nil {
		return nil, err
	}
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst, cfg.UserAgent = -1, 0, sim.FieldManager
	if _, err := envtest.InstallCRDs(cfg, envtest.CRDInstallOptions{CRDs: crds, Scheme: Scheme()}); err != nil {
		return nil, fmt.Errorf("installing opcert's CRDs on %s: %w", redact.URLs(cfg.Host), err)
	}
	return client.New(cfg, client.Options{Scheme: Scheme()})
}
