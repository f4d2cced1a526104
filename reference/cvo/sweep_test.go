package cvo

import (
	"reflect"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestHappensBefore follows one upgrade look by look: what follows a
// ClusterOperator is applied only once it reached the new version (001
// §What should an operator report, guarantees to components 4), strictly
// in payload order whatever the run level (doc.go).
func TestHappensBefore(t *testing.T) {
	m := time.Minute
	etcd401 := healthyAt("4.0.0")
	etcd401.ClusterOperators["etcd"] = healthy(etcdVers("4.0.1"))
	looks := []struct {
		look
		apply []string
		wait  string
	}{
		{look{m, healthyAt("4.0.0")}, []string{"0000_00_namespaces.yaml", "0000_50_etcd_03_deployment.yaml"}, "Cluster operator etcd is updating versions"},
		{look{2 * m, healthyAt("4.0.0")}, nil, "Cluster operator etcd is updating versions"},
		{look{3 * m, etcd401}, []string{"0000_60_kube-apiserver_03_deployment.yaml"}, "Cluster operator kube-apiserver is updating versions"},
		{look{4 * m, etcd401}, nil, "Cluster operator kube-apiserver is updating versions"},
		{look{5 * m, healthyAt("4.0.1")}, []string{"0000_90_monitoring_01_configmap.yaml"}, ""},
		{look{6 * m, healthyAt("4.0.1")}, nil, ""},
	}
	s := upgrading()
	for _, l := range looks {
		d := Step(DefaultParams(), s, l.c, at(l.at))
		if got := names(d.Apply); !reflect.DeepEqual(got, l.apply) {
			t.Errorf("+%v: applied %q, want %q", l.at, got, l.apply)
		}
		got := ""
		if d.Wait != nil {
			got = d.Wait.Message
		}
		if got != l.wait {
			t.Errorf("+%v: waits on %q, want %q", l.at, got, l.wait)
		}
		s = d.State
	}
}

// TestHistory follows the ClusterVersion's history through an install, an
// upgrade, and a retarget that leaves an upgrade unfinished.
func TestHistory(t *testing.T) {
	m := time.Minute
	ts := func(d time.Duration) *metav1.Time { x := metav1.NewTime(at(d)); return &x }
	entry := func(state configv1.UpdateState, v string, from time.Duration, to *metav1.Time) configv1.UpdateHistory {
		return configv1.UpdateHistory{State: state, Version: v, Image: release(v).Image, StartedTime: *ts(from), CompletionTime: to}
	}
	install := entry(configv1.CompletedUpdate, "4.0.0", 0, ts(0))
	upgrade := func(s State, v string) State {
		s, err := Upgrade(s, healthyAt("4.0.0"), release(v), payload(v))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := installed()
	steps := []struct {
		name   string
		change func(State) State
		look   look
		want   []configv1.UpdateHistory
	}{
		{"installed", nil, look{0, healthyAt("4.0.0")}, []configv1.UpdateHistory{install}},
		{"upgrade to 4.0.1 begins", func(s State) State { return upgrade(s, "4.0.1") }, look{m, healthyAt("4.0.0")},
			[]configv1.UpdateHistory{entry(configv1.PartialUpdate, "4.0.1", m, nil), install}},
		{"retargeted to 4.0.2: 4.0.1 closed, still Partial", func(s State) State { return upgrade(s, "4.0.2") }, look{2 * m, healthyAt("4.0.0")},
			[]configv1.UpdateHistory{entry(configv1.PartialUpdate, "4.0.2", 2*m, nil), entry(configv1.PartialUpdate, "4.0.1", m, ts(2*m)), install}},
		{"4.0.2 completes", nil, look{3 * m, healthyAt("4.0.2")},
			[]configv1.UpdateHistory{entry(configv1.CompletedUpdate, "4.0.2", 2*m, ts(3*m)), entry(configv1.PartialUpdate, "4.0.1", m, ts(2*m)), install}},
	}
	for _, st := range steps {
		if st.change != nil {
			s = st.change(s)
		}
		s = Step(DefaultParams(), s, st.look.c, at(st.look.at)).State
		if got := s.Status.History; !reflect.DeepEqual(got, st.want) {
			t.Errorf("%s:\ngot  %+v\nwant %+v", st.name, got, st.want)
		}
	}
}

// TestTransitionTimes: a condition's lastTransitionTime moves only when its
// status changes, not with its message (001 §Conditions).
func TestTransitionTimes(t *testing.T) {
	m := time.Minute
	degraded := cluster(map[string]configv1.ClusterOperatorStatus{"etcd": healthy(etcdVers("4.0.1"), degradedTrue)})
	s := upgrading()
	want := []struct {
		at                   time.Duration
		failing, progressing time.Duration
	}{
		{m, 0, m},           // Progressing turns True; Failing stays False from the install
		{41 * m, 41 * m, m}, // Failing turns True; Progressing stays True with a new message
	}
	for _, w := range want {
		s = Step(DefaultParams(), s, degraded, at(w.at)).State
		for typ, since := range map[configv1.ClusterStatusConditionType]time.Duration{failing: w.failing, progressing: w.progressing} {
			if got := find(s.Status.Conditions, typ).LastTransitionTime.Time; !got.Equal(at(since)) {
				t.Errorf("+%v: %s lastTransitionTime %v, want %v", w.at, typ, got, at(since))
			}
		}
	}
}

func TestSwept(t *testing.T) {
	cases := []struct {
		name             string
		in, swept, other []string
	}{
		{"alphabetical, by bytes", []string{"0000_50_b.yaml", "0000_10_a.yml", "0000_50_B.json", "0000_50_a.yaml"},
			[]string{"0000_10_a.yml", "0000_50_B.json", "0000_50_a.yaml", "0000_50_b.yaml"}, nil},
		{"other extensions are ignored", []string{"README.md", "0000_50_a.yaml", "image-references", "0000_50_x.yaml.orig", "0000_50_y.YAML"},
			[]string{"0000_50_a.yaml"}, []string{"0000_50_x.yaml.orig", "0000_50_y.YAML", "README.md", "image-references"}},
		{"nothing", nil, nil, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			swept, other := Swept(tc.in)
			if !reflect.DeepEqual(swept, tc.swept) || !reflect.DeepEqual(other, tc.other) {
				t.Errorf("001 §How ClusterVersionOperator handles ClusterOperator in release image: swept %q ignored %q, want %q and %q", swept, other, tc.swept, tc.other)
			}
		})
	}
}
