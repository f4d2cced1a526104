package apiserver

import (
	"fmt"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// AddUser provisions a user of its own for a process opcert starts, so
// that the API server knows exactly which process made each request, and
// returns a kubeconfig (and a rest.Config) for it. server, if not empty, replaces the API server's address
// (host:port) in it: process mode points each process at its own proxy.
// The user is cluster-admin (system:masters) on this private server: it
// plays an operator, whose rights are not under test. Its writes are
// audited (Writer).
func (w *Server) AddUser(name, server string) ([]byte, *rest.Config, error) {
	return w.AddUserInGroups(name, server, []string{"system:masters", ProcessGroup})
}

// AddUserInGroups is AddUser for a user in the given groups only, whose
// rights are then what RBAC grants them: cluster mode's tests give such a
// user only opcert's least-privilege roles.
func (w *Server) AddUserInGroups(name, server string, groups []string) ([]byte, *rest.Config, error) {
	u, err := w.plane.AddUser(envtest.User{Name: name, Groups: groups}, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("adding user %s: %w", name, err)
	}
	cfg := rest.CopyConfig(u.Config())
	if server != "" {
		cfg.Host = "https://" + server
	}
	kc := clientcmdapi.NewConfig()
	kc.Clusters["opcert"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos[name] = &clientcmdapi.AuthInfo{ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData}
	kc.Contexts["opcert"] = &clientcmdapi.Context{Cluster: "opcert", AuthInfo: name}
	kc.CurrentContext = "opcert"
	data, err := clientcmd.Write(*kc)
	if err != nil {
		return nil, nil, err
	}
	return data, cfg, nil
}

// RESTConfig is the harness's own access to the API server.
func (w *Server) RESTConfig() *rest.Config { return w.Config }
