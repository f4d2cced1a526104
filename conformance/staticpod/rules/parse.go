package rules

import (
	"encoding/json"
	"path"
	"strconv"
	"strings"

	"github.com/opcert/opcert/sim/timeline"
)

// manifestNote is what a pod manifest write says in its Detail (timeline
// contract): "revision=<N>", and for a fallback manifest
// " fallback-for-revision=<M> fallback-reason=<R> fallback-message=<text>",
// the message last.
type manifestNote struct {
	revision int // 0 when missing or not a number
	fallback bool
	// The three annotations as written, "" when absent.
	forRevision, reason, message string
}

func parseManifest(detail string) manifestNote {
	var m manifestNote
	head, msg, hasMsg := strings.Cut(detail, " fallback-message=")
	if hasMsg {
		m.message = msg
	}
	for _, f := range strings.Fields(head) {
		k, v, _ := strings.Cut(f, "=")
		switch k {
		case "revision":
			m.revision = revisionNumber(v)
		case "fallback-for-revision":
			m.forRevision = v
		case "fallback-reason":
			m.reason = v
		}
	}
	m.fallback = hasMsg || m.forRevision != "" || m.reason != ""
	return m
}

// revisionNumber reads a revision, 0 if it is none.
func revisionNumber(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// revisionOf tells which revision's resource directory p is in.
func revisionOf(p string) (int, bool) {
	rest, ok := strings.CutPrefix(p, revisionDirPrefix)
	if !ok {
		return 0, false
	}
	n := revisionNumber(strings.SplitN(rest, "/", 2)[0])
	return n, n > 0
}

// revisionDir is revision n's resource directory.
func revisionDir(n int) string { return revisionDirPrefix + strconv.Itoa(n) }

// within tells whether p is dir or inside it.
func within(p, dir string) bool {
	return p == dir || dir == "/" || strings.HasPrefix(p, dir+"/")
}

// probe is the operand's latest answer on one endpoint.
type probe struct {
	answered bool     // an HTTP status came back; false also when never probed
	ok       bool     // 200 to 399
	status   string   // the Detail's first line
	failing  []string // the checks it lists as failed ("poststarthook/x", "etcd")
	ev       timeline.Event
}

// parseProbe reads a probe event's Detail: the status ("200 OK",
// "connection refused") on the first line, then for a failing /readyz the
// failing checks as kube-apiserver lists them ("[-]etcd failed: reason
// withheld").
func parseProbe(e timeline.Event) probe {
	lines := strings.Split(e.Detail, "\n")
	p := probe{status: lines[0], ok: !e.Failed, ev: e}
	if len(lines[0]) >= 3 {
		_, err := strconv.Atoi(lines[0][:3])
		p.answered = err == nil
	}
	p.ok = p.ok && p.answered
	for _, l := range lines[1:] {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(l), "[-]"); ok {
			if f := strings.Fields(rest); len(f) > 0 {
				p.failing = append(p.failing, f[0])
			}
		}
	}
	return p
}

func (p probe) says() string {
	if p.status == "" {
		return "was never probed"
	}
	return "answered " + strconv.Quote(p.status)
}

// unfinishedHooks are the post-start hooks a failing /readyz lists.
func (p probe) unfinishedHooks() []string {
	var out []string
	for _, c := range p.failing {
		if h, ok := strings.CutPrefix(c, "poststarthook/"); ok {
			out = append(out, h)
		}
	}
	return out
}

// etcdFailing tells whether an answer lists an etcd check as failed:
// kube-apiserver's "etcd" and "etcd-readiness" (003 §Readiness step 4's
// "etcd post-start-hook").
func (p probe) etcdFailing() bool {
	for _, c := range p.failing {
		n := strings.TrimPrefix(c, "poststarthook/")
		if n == "etcd" || strings.HasPrefix(n, "etcd-") {
			return true
		}
	}
	return false
}

// annotations reads the mirror pod's metadata.annotations field (JSON
// text); nil when absent or not an object of strings.
func annotations(raw json.RawMessage) map[string]string {
	var m map[string]string
	if len(raw) == 0 || json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m
}

// appendedMessage reads a termination.log write's Detail (timeline
// contract): "append <N> bytes: <line>", the line's termination message
// being its text after its first ": " ("<time> kube-apiserver revision <N>
// start <k>: Error: unknown flag: --foo"); "" if there is none.
func appendedMessage(detail string) string {
	rest, ok := strings.CutPrefix(detail, "append ")
	if !ok {
		return ""
	}
	_, line, ok := strings.Cut(rest, " bytes: ")
	if !ok {
		return ""
	}
	_, msg, _ := strings.Cut(line, ": ")
	return strings.TrimSpace(msg)
}

// lastTerminated reads the mirror pod's status.containerStatuses field
// (JSON text): the message of the first container's lastState.terminated
// that has one, "" if none.
func lastTerminated(raw json.RawMessage) string {
	var statuses []struct {
		LastState struct {
			Terminated *struct {
				Message string `json:"message"`
			} `json:"terminated"`
		} `json:"lastState"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &statuses) != nil {
		return ""
	}
	for _, s := range statuses {
		if t := s.LastState.Terminated; t != nil && t.Message != "" {
			return t.Message
		}
	}
	return ""
}

// nodeStatus is what the rules read of one node in the operator's status
// (timeline contract).
type nodeStatus struct {
	NodeName       string `json:"nodeName"`
	TargetRevision int    `json:"targetRevision"`
	Installs       int    `json:"installs"`
}

// nodeStatuses reads the operator's status.extension.nodeStatuses field
// (JSON text); the entries that are not objects are skipped.
func nodeStatuses(raw json.RawMessage) []nodeStatus {
	var items []json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &items) != nil {
		return nil
	}
	var out []nodeStatus
	for _, it := range items {
		var ns nodeStatus
		if json.Unmarshal(it, &ns) == nil {
			out = append(out, ns)
		}
	}
	return out
}

// jsonString reads a field holding a JSON string, "" otherwise.
func jsonString(raw json.RawMessage) string {
	var s string
	if len(raw) == 0 || json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// cleanPath is a node path as the rules compare it.
func cleanPath(p string) string {
	if p == "" {
		return ""
	}
	return path.Clean(p)
}
