package cluster

import (
	"fmt"
	"maps"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/opcert/opcert/apiserver"
	"github.com/opcert/opcert/bounded"
)

// MaxKubeconfigBytes is the largest kubeconfig opcert reads: client-go
// reads it whole, and one with many clusters and their certificates is
// tens of KiB. A kubeconfig that is not a regular file (a FIFO would block
// the read) is refused too.
const MaxKubeconfigBytes = 4 << 20

// Load reads the kubeconfig at path, in its current context or the one
// named. Only an explicit file is read: cluster mode never falls back to
// $KUBECONFIG or ~/.kube/config, so that no run lands on a cluster by
// accident.
func Load(path, context string) (*rest.Config, string, error) {
	if err := bounded.Check(path, MaxKubeconfigBytes); err != nil {
		return nil, "", fmt.Errorf("--kubeconfig: %w", err)
	}
	rules := &clientcmd.ClientConfigLoadingRules{ExplicitPath: path}
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: context})
	raw, err := cc.RawConfig()
	if err != nil {
		return nil, "", fmt.Errorf("--kubeconfig %s: %w", path, err)
	}
	name := raw.CurrentContext
	if context != "" {
		name = context
	}
	if name == "" {
		return nil, "", fmt.Errorf("--kubeconfig %s has no current context: give --context (contexts: %v)", path, contextNames(raw.Contexts))
	}
	if _, ok := raw.Contexts[name]; !ok {
		return nil, "", fmt.Errorf("--kubeconfig %s has no context %q (contexts: %v)", path, name, contextNames(raw.Contexts))
	}
	cfg, err := cc.ClientConfig()
	if err != nil {
		return nil, "", fmt.Errorf("--kubeconfig %s, context %s: %w", path, name, err)
	}
	// A run makes a few calls a second, in bursts when operators answer
	// at once: client-go's default of 5 a second would delay the
	// detector's writes and be judged as its lateness.
	cfg.QPS, cfg.Burst = 100, 200
	return cfg, name, nil
}

func contextNames[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// Scheme is opcert's scheme (apiserver.Scheme) with what cluster mode reads
// and scales (apps/v1 Deployments and their autoscaling/v1 Scale) and
// asks (authorization/v1 access reviews).
func Scheme() *runtime.Scheme {
	s := apiserver.Scheme()
	for _, add := range []func(*runtime.Scheme) error{appsv1.AddToScheme, autoscalingv1.AddToScheme, authorizationv1.AddToScheme} {
		if err := add(s); err != nil {
			panic(err) // static types: cannot fail at run time
		}
	}
	return s
}

// configFrom reads a kubeconfig's bytes (kind's) in its current context.
func configFrom(kubeconfig []byte) (*rest.Config, error) {
	cfg, err := clientcmd.RESTConfigFromKubeConfig(kubeconfig)
	if err != nil {
		return nil, err
	}
	cfg.QPS, cfg.Burst = 100, 200
	return cfg, nil
}
