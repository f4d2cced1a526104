package componentoperator

import "time"

// progress remembers, in the process only, when the rollout last moved:
// a restarted operator starts counting afresh, which only makes it
// slower to call a rollout stalled.
type progress struct {
	target string
	pods   map[string]podState // by name, as last seen
	last   time.Time           // zero before the first look
}

// see notes a look at a rollout to v and returns when it last moved. It
// moved when the operator wrote a spec, a pod of v came or turned ready or
// unready, or a pod of another version went.
func (p *progress) see(s snapshot, v string, wrote bool, now time.Time) time.Time {
	pods := map[string]podState{}
	for _, o := range s.operands {
		for _, pod := range o.pods {
			pods[pod.name] = pod
		}
	}
	moved := p.last.IsZero() || wrote || p.target != v
	for name, pod := range pods {
		was, seen := p.pods[name]
		if pod.version == v && (!seen || was.ready != pod.ready) {
			moved = true
		}
	}
	for name, was := range p.pods {
		if _, there := pods[name]; !there && was.version != v {
			moved = true
		}
	}
	if moved {
		p.last = now
	}
	p.target, p.pods = v, pods
	return p.last
}
