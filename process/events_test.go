package process

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

// A process's informer, through the proxy, sees nothing of what happens
// while its events are lost; once they are not, it lists again and ends
// with the state as it is, never having seen the ones in between. Over
// HTTP/2 and HTTP/1.1 alike.
func TestProxyLoseEventsThenRelist(t *testing.T) {
	for proto, major := range map[string]int{"h2": 2, "http/1.1": 1} {
		t.Run(proto, func(t *testing.T) { loseEvents(t, proto, major) })
	}
}

func loseEvents(t *testing.T, proto string, major int) {
	px := newProxied(t)
	px.cfg.NextProtos = []string{proto}
	hc, err := rest.HTTPClientFor(px.cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := hc.Get(px.cfg.Host + "/version"); err != nil || res.ProtoMajor != major {
		t.Fatalf("through the proxy over %s: %v", proto, err)
	} else {
		res.Body.Close()
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	server := admin(t).CoreV1().ConfigMaps(px.ns)
	if _, err := server.Create(ctx, configMap("watched", "0"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	var mu sync.Mutex
	var seen []string // the values of "watched" the process's handlers were told of
	note := func(obj any) {
		if cm, ok := obj.(*corev1.ConfigMap); ok && cm.Name == "watched" {
			mu.Lock()
			seen = append(seen, cm.Data["v"])
			mu.Unlock()
		}
	}
	saw := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(seen)
	}
	factory := informers.NewSharedInformerFactoryWithOptions(clientset(t, px.cfg), 0, informers.WithNamespace(px.ns))
	inf := factory.Core().V1().ConfigMaps().Informer()
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: note,
		UpdateFunc: func(_, obj any) { note(obj) }}); err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	defer func() { cancel(); factory.Shutdown() }()
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		t.Fatal("the informer did not sync")
	}
	update := func(v string) string {
		t.Helper()
		cm, err := server.Update(ctx, configMap("watched", v), metav1.UpdateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return cm.ResourceVersion
	}
	until := func(what string, done func() bool) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !done(); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: not within 10s (the process saw %v)", what, saw())
			}
		}
	}
	path := "/api/v1/namespaces/" + px.ns + "/configmaps"
	dropped := func(rv string) func() bool {
		n, _ := strconv.ParseUint(rv, 10, 64)
		return func() bool {
			px.proxy.mu.Lock()
			defer px.proxy.mu.Unlock()
			return px.proxy.lost[path] >= n
		}
	}

	update("1")
	until("the update before the loss reaches the process", func() bool { return slices.Contains(saw(), "1") })
	px.proxy.LoseEvents(true)
	update("2")
	until("the proxy drops the events", dropped(update("3")))
	if got := saw(); !slices.Equal(got, []string{"0", "1"}) {
		t.Fatalf("while its events are lost the process saw %v", got)
	}
	until("the proxy drops the last event", dropped(update("4")))
	px.proxy.LoseEvents(false)
	until("the process relists", func() bool { return slices.Contains(saw(), "4") })
	if got := saw(); !slices.Equal(got, []string{"0", "1", "4"}) {
		t.Errorf("the process saw %v, want 0, 1 and then the state as it is, 4", got)
	}
}
