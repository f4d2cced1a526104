package apiserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Who made a write. A process opcert starts (process mode) has a user of
// its own (AddUser), in ProcessGroup. The API server's audit sends every
// write by a member of that group, with the object as the write left it,
// to a webhook inside opcert, so that a write seen on a watch is put down
// to the user the API server authenticated, not guessed from the object.
// Writes by anyone else (opcert's own clients) are not audited: a run in
// virtual time pays nothing for it.

// ProcessGroup is the group of the users AddUser provisions; the audit
// policy records their writes only.
const ProcessGroup = "opcert:processes"

// auditPolicy records, at RequestResponse (the response carries the
// object's new resourceVersion), the writes of ProcessGroup's users, and
// nothing else. Request bodies and managedFields are left out: only the
// response's metadata is read.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived, ResponseStarted, Panic]
omitManagedFields: true
rules:
- level: RequestResponse
  userGroups: ["` + ProcessGroup + `"]
  verbs: [create, update, patch, delete]
- level: None
`

// audit receives the API server's audit events and keeps the writes by
// resourceVersion until asked for.
type audit struct {
	srv *http.Server
	mu  sync.Mutex
	// byRV are the audited writes not yet asked for, with when each
	// arrived; arrived wakes the askers waiting for one.
	byRV    map[string]audited
	arrived chan struct{}
}

// audited is who made an audited write, and when its event arrived.
type audited struct {
	user string
	at   time.Time
}

// auditKeep is how long an audited write nobody asked for is kept: a
// process also writes what no one watches (events, leases).
const auditKeep = time.Minute

// startAudit starts the webhook and writes the files the API server's
// audit flags name into dir.
func startAudit(dir string) (*audit, map[string]string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, fmt.Errorf("starting the audit webhook: %w", err)
	}
	a := &audit{byRV: map[string]audited{}, arrived: make(chan struct{})}
	a.srv = &http.Server{Handler: http.HandlerFunc(a.receive), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = a.srv.Serve(l) }()
	policy := filepath.Join(dir, "audit-policy.yaml")
	webhook := filepath.Join(dir, "audit-webhook.kubeconfig")
	kc := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: opcert
  cluster:
    server: http://%s/audit
contexts:
- name: opcert
  context:
    cluster: opcert
current-context: opcert
`, l.Addr())
	for path, text := range map[string]string{policy: auditPolicy, webhook: kc} {
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			a.close()
			return nil, nil, err
		}
	}
	// Blocking: the event is sent while the request is served, so it
	// arrives with the write, not up to a batch's second later.
	return a, map[string]string{"audit-policy-file": policy, "audit-webhook-config-file": webhook,
		"audit-webhook-mode": "blocking"}, nil
}

func (a *audit) close() { _ = a.srv.Close() }

func (w *Server) closeAudit() {
	if w.audit != nil {
		w.audit.close()
	}
}

// Writer tells which process's user made the write that left
// resourceVersion rv, waiting up to within for the API server's audit
// event; ErrNotAudited means none did (the write was someone else's).
func (w *Server) Writer(ctx context.Context, rv string, within time.Duration) (string, error) {
	return w.audit.writer(ctx, rv, within)
}

// eventList is what the audit webhook receives (audit.k8s.io/v1
// EventList), as far as opcert reads it.
type eventList struct {
	Items []struct {
		User struct {
			Username string `json:"username"`
		} `json:"user"`
		ResponseStatus *struct {
			Code int `json:"code"`
		} `json:"responseStatus"`
		ResponseObject *struct {
			Metadata struct {
				ResourceVersion string `json:"resourceVersion"`
			} `json:"metadata"`
		} `json:"responseObject"`
	} `json:"items"`
}

func (a *audit) receive(w http.ResponseWriter, r *http.Request) {
	var list eventList
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<20)).Decode(&list); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	now := time.Now()
	a.mu.Lock()
	for rv, w := range a.byRV {
		if now.Sub(w.at) > auditKeep {
			delete(a.byRV, rv)
		}
	}
	for _, it := range list.Items {
		if it.ResponseObject == nil || it.ResponseObject.Metadata.ResourceVersion == "" {
			continue // a refused write, or a Status answer: no object was written
		}
		if it.ResponseStatus != nil && it.ResponseStatus.Code >= 300 {
			continue
		}
		rv := it.ResponseObject.Metadata.ResourceVersion
		a.byRV[rv] = audited{it.User.Username, now}
	}
	close(a.arrived)
	a.arrived = make(chan struct{})
	a.mu.Unlock()
	w.WriteHeader(http.StatusOK)
}

// ErrNotAudited means no process's write left that resourceVersion
// within the wait: someone else made it.
var ErrNotAudited = errors.New("no write by a process left that resourceVersion")

// writer returns the user whose audited write left resourceVersion rv
// (resourceVersions are unique across an etcd), waiting up to within for
// it: the watch can bring a write before its audit event has arrived. A
// write stays known for auditKeep after its event came, so that a watch
// that brings it twice (a relist) names its writer both times.
func (a *audit) writer(ctx context.Context, rv string, within time.Duration) (string, error) {
	timer := time.NewTimer(within)
	defer timer.Stop()
	for {
		a.mu.Lock()
		w, ok := a.byRV[rv]
		arrived := a.arrived
		a.mu.Unlock()
		if ok {
			return w.user, nil
		}
		select {
		case <-arrived:
		case <-timer.C:
			return "", ErrNotAudited
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
}
