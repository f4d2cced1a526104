package process

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// proxied is a proxy in front of the test API server for a user of its
// own, a client of the process's through it, and a namespace for the
// test's objects.
type proxied struct {
	proxy *Proxy
	user  string
	cfg   *rest.Config // the process's, from the proxy's kubeconfig
	ns    string
}

func newProxied(t *testing.T) *proxied {
	t.Helper()
	needAPI(t)
	name := prefix() + "proxy"
	user := "opcert:test/" + name
	_, cfg, err := api.AddUser(user, "")
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewProxy(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	kc, err := p.Kubeconfig(user)
	if err != nil {
		t.Fatal(err)
	}
	pc, err := clientcmd.RESTConfigFromKubeConfig(kc)
	if err != nil {
		t.Fatal(err)
	}
	pc.Timeout = 5 * time.Second
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := admin(t).CoreV1().Namespaces().Create(context.Background(), ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return &proxied{proxy: p, user: user, cfg: pc, ns: name}
}

// admin is opcert's own client, straight to the API server.
func admin(t *testing.T) kubernetes.Interface {
	t.Helper()
	return clientset(t, api.RESTConfig())
}

func clientset(t *testing.T, cfg *rest.Config) kubernetes.Interface {
	t.Helper()
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func configMap(name, v string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"v": v}}
}

// The proxy terminates the process's TLS and forwards as the process's
// user: the API server's audit names that user as the writer. A client
// with another certificate is not served; a cut refuses the process until
// Restore.
func TestProxyForwardsAsTheProcessUser(t *testing.T) {
	px := newProxied(t)
	ctx := context.Background()
	cms := clientset(t, px.cfg).CoreV1().ConfigMaps(px.ns)
	cm, err := cms.Create(ctx, configMap("written", "1"), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("a write through the proxy: %v", err)
	}
	if who, err := api.Writer(ctx, cm.ResourceVersion, 5*time.Second); err != nil || who != px.user {
		t.Errorf("the audit names %q (%v) as the writer, want %q", who, err, px.user)
	}

	// opcert's own (cluster-admin) certificate, trusting the proxy's CA:
	// the proxy serves only its user's.
	other := rest.CopyConfig(api.RESTConfig())
	other.Host, other.CAData, other.Timeout = px.cfg.Host, px.cfg.CAData, 5*time.Second
	if _, err := clientset(t, other).CoreV1().ConfigMaps(px.ns).Create(ctx, configMap("other", "1"), metav1.CreateOptions{}); err == nil {
		t.Error("a client with another certificate was served")
	}

	px.proxy.Cut()
	if _, err := cms.Create(ctx, configMap("cut", "1"), metav1.CreateOptions{}); err == nil {
		t.Error("a write went through a cut proxy")
	}
	px.proxy.Restore()
	if _, err := cms.Create(ctx, configMap("restored", "1"), metav1.CreateOptions{}); err != nil {
		t.Errorf("after Restore: %v", err)
	}
}

// After the k-th counted write, the proxy cuts the process off before
// anything else reaches the server and calls the crash once; an Event
// is not counted.
func TestProxyCrashAfterTheKthWrite(t *testing.T) {
	px := newProxied(t)
	ctx := context.Background()
	crashes := make(chan struct{}, 2)
	if err := px.proxy.CrashAfter(2, func() { crashes <- struct{}{} }); err != nil {
		t.Fatal(err)
	}
	cs := clientset(t, px.cfg)
	ev := &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "noted"}, Reason: "Test",
		InvolvedObject: corev1.ObjectReference{Kind: "ConfigMap", Namespace: px.ns, Name: "first"}}
	if _, err := cs.CoreV1().Events(px.ns).Create(ctx, ev, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cms := cs.CoreV1().ConfigMaps(px.ns)
	if _, err := cms.Create(ctx, configMap("first", "1"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	_, _ = cms.Create(ctx, configMap("second", "1"), metav1.CreateOptions{}) // its answer is cut off
	select {
	case <-crashes:
	case <-time.After(5 * time.Second):
		t.Fatal("no crash after the second write")
	}
	if _, err := cms.Create(ctx, configMap("third", "1"), metav1.CreateOptions{}); err == nil {
		t.Error("a write after the crash went through")
	}
	server := admin(t).CoreV1().ConfigMaps(px.ns)
	for name, want := range map[string]bool{"first": true, "second": true, "third": false} {
		_, err := server.Get(ctx, name, metav1.GetOptions{})
		if got := err == nil; got != want || (!got && !apierrors.IsNotFound(err)) {
			t.Errorf("%s on the server: %v, want %v (%v)", name, got, want, err)
		}
	}

	px.proxy.Restore() // as a restart does: the plan has fired, writes go through uncounted
	if _, err := cms.Create(ctx, configMap("fourth", "1"), metav1.CreateOptions{}); err != nil {
		t.Errorf("after Restore: %v", err)
	}
	select {
	case <-crashes:
		t.Error("the crash was called twice")
	case <-time.After(200 * time.Millisecond):
	}
	if err := px.proxy.CrashAfter(0, func() {}); err == nil {
		t.Error("a crash before the first write was accepted")
	}
}

func TestResourceOf(t *testing.T) {
	for path, want := range map[string][2]string{
		"/api/v1/namespaces/ns/events":                           {"", "events"},
		"/api/v1/namespaces/ns/configmaps/x":                     {"", "configmaps"},
		"/api/v1/namespaces/ns":                                  {"", "namespaces"},
		"/api/v1/namespaces/ns/status":                           {"", "namespaces"},
		"/api/v1/nodes/n/status":                                 {"", "nodes"},
		"/apis/coordination.k8s.io/v1/namespaces/ns/leases/l":    {"coordination.k8s.io", "leases"},
		"/apis/config.openshift.io/v1/clusteroperators/x/status": {"config.openshift.io", "clusteroperators"},
		"/version": {"", ""},
	} {
		if g, r := resourceOf(path); g != want[0] || r != want[1] {
			t.Errorf("resourceOf(%s) = %q, %q; want %q, %q", path, g, r, want[0], want[1])
		}
	}
}
