package node

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// State is a revision at one instant.
type State struct {
	Starts    int       // start attempts so far, each a line in termination.log
	Running   bool      // a process of the revision is up
	Listening bool      // it accepts connections (if not, probes are refused)
	Checks    []Check   // its health checks in kube-apiserver's order; nil when not listening
	Pod       Pod       // the mirror pod as the kubelet reports it
	Next      time.Time // the next instant any of this changes; zero if nothing ever will
}

// Check is one health check of a listening process.
type Check struct {
	Name string // as kube-apiserver names it: "etcd", "poststarthook/<hook>"
	// OK is true when the check passes.
	OK         bool
	Reason     string // the error it gives when failing
	ReadyzOnly bool   // on /readyz but not /healthz (post-start hooks, see Respond)
}

// Pod is the mirror pod's status.
type Pod struct {
	Exists bool // false when the kubelet cannot read the manifest
	// Phase is the mirror pod's status.phase.
	Phase corev1.PodPhase
	Ready bool // every check passes (the readiness probe reads /readyz)
	// RestartCount is the container's starts so far less the first (State.Starts - 1).
	RestartCount int32
}

// Respond is the status code and body a listening process gives for path,
// in kube-apiserver's healthz format: /healthz and /readyz list their checks
// ("[-]<name> failed: reason withheld") when one fails, or with ?verbose,
// and skip the ones named by ?exclude; /healthz/<check> and /readyz/<check>
// serve one check. Post-start hooks are on /readyz only: kube-apiserver also
// lists them on /healthz, but the seed's "healthy but never readyz" (reason
// NotReady, probed after /healthz) needs a /healthz that stays green while
// a hook is pending.
func (s State) Respond(path string, query url.Values) (int, string) {
	for _, endpoint := range []string{"healthz", "readyz"} {
		checks := s.Checks
		if endpoint == "healthz" {
			checks = slices.DeleteFunc(slices.Clone(checks), func(c Check) bool { return c.ReadyzOnly })
		}
		if path == "/"+endpoint {
			return respondAll(endpoint, checks, query)
		}
		name, ok := strings.CutPrefix(path, "/"+endpoint+"/")
		if !ok {
			continue
		}
		if i := slices.IndexFunc(checks, func(c Check) bool { return c.Name == name }); i >= 0 {
			if !checks[i].OK {
				return http.StatusInternalServerError, "internal server error: " + checks[i].Reason + "\n"
			}
			return http.StatusOK, "ok"
		}
	}
	return http.StatusNotFound, "404 page not found\n"
}

func respondAll(endpoint string, checks []Check, query url.Values) (int, string) {
	// Named once each, in order, as kube-apiserver keeps them in a set.
	excluded := slices.Compact(slices.Sorted(slices.Values(query["exclude"])))
	var b strings.Builder
	failed := false
	for _, c := range checks {
		switch {
		case slices.Contains(excluded, c.Name):
			excluded = slices.DeleteFunc(excluded, func(e string) bool { return e == c.Name })
			fmt.Fprintf(&b, "[+]%s excluded: ok\n", c.Name)
		case c.OK:
			fmt.Fprintf(&b, "[+]%s ok\n", c.Name)
		default:
			// kube-apiserver withholds the reason on the aggregate endpoint.
			fmt.Fprintf(&b, "[-]%s failed: reason withheld\n", c.Name)
			failed = true
		}
	}
	if len(excluded) > 0 {
		quoted := make([]string, len(excluded))
		for i, e := range excluded {
			quoted[i] = fmt.Sprintf("%q", e)
		}
		fmt.Fprintf(&b, "warn: some health checks cannot be excluded: no matches for %s\n", strings.Join(quoted, ","))
	}
	if failed {
		return http.StatusInternalServerError, b.String() + endpoint + " check failed\n"
	}
	if !query.Has("verbose") {
		return http.StatusOK, "ok"
	}
	return http.StatusOK, b.String() + endpoint + " check passed\n"
}
