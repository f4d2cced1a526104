package process

import (
	"errors"
	"net/http"
	"strings"
)

// crashPlan is an armed CrashAfter: left writes to go, then fire.
type crashPlan struct {
	left int
	fire func()
}

// CrashAfter arms a crash: after the process's k-th counted write from
// now (counted: below) that the API server answers 2xx, the proxy at once
// cuts the process off (Cut: that write's answer does not reach it, and
// nothing it sends after reaches the server) and calls crash, once, in a
// goroutine of its own. The crash thus falls between two writes of a
// reconcile, the k-th done, the next never made; crash is where the
// caller kills the process and starts it again (Restore, which a restart
// does, lets the new one through). While a crash is armed the process's
// counted writes go through one at a time, so that no other is in flight
// when the k-th fires. A new CrashAfter replaces one not yet fired.
func (p *Proxy) CrashAfter(k int, crash func()) error {
	if k < 1 {
		return errors.New("a crash comes after the first write or later")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.crash = &crashPlan{left: k, fire: crash}
	return nil
}

func (p *Proxy) armed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.crash != nil
}

// wrote counts a counted write the API server accepted, and fires the
// armed crash at its k-th.
func (p *Proxy) wrote() {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.crash
	if c == nil {
		return
	}
	if c.left--; c.left > 0 {
		return
	}
	p.crash = nil
	p.cutLocked()
	go c.fire()
}

// uncounted are the API groups whose writes are not the process's work on
// the objects it reconciles: leases (a leader renews its lease on a wall
// clock, not in step with its reconciles, so counting them would move
// the k-th write with the machine's speed), events (a record of the
// work, not the work) and the review APIs (questions asked with POST).
var uncounted = map[string]bool{
	"coordination.k8s.io": true, "events.k8s.io": true,
	"authentication.k8s.io": true, "authorization.k8s.io": true,
}

// counted tells whether r is a write CrashAfter counts: a create, update,
// patch or delete, except of the resources uncounted names and of core
// Events.
func counted(r *http.Request) bool {
	switch r.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
	default:
		return false
	}
	group, resource := resourceOf(r.URL.Path)
	return !uncounted[group] && !(group == "" && resource == "events")
}

// resourceOf reads the API group and the resource of a request path
// (/api/v1/namespaces/ns/events/x is "" and events, /apis/g/v1/things
// is g and things); a path that is no resource's gives "", "".
func resourceOf(path string) (group, resource string) {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	var rest []string
	switch {
	case len(segs) >= 3 && segs[0] == "api":
		rest = segs[2:]
	case len(segs) >= 4 && segs[0] == "apis":
		group, rest = segs[1], segs[3:]
	default:
		return "", ""
	}
	// namespaces/ns/<resource>...; namespaces/ns/status and /finalize are
	// the namespace's own.
	if len(rest) >= 3 && rest[0] == "namespaces" && rest[2] != "status" && rest[2] != "finalize" {
		rest = rest[2:]
	}
	return group, rest[0]
}
