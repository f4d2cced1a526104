package componentoperator

import (
	"reflect"
	"testing"

	"github.com/opcert/opcert/reference/component"
)

func TestParseOperands(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    []component.Workload
		wantErr bool
	}{
		{in: "", want: nil},
		{in: "Deployment/server=3", want: []component.Workload{{Kind: component.Deployment, Name: "server", Replicas: 3}}},
		{in: "Deployment/server=3, DaemonSet/agent", want: []component.Workload{
			{Kind: component.Deployment, Name: "server", Replicas: 3}, {Kind: component.DaemonSet, Name: "agent"}}},
		{in: "Deployment/server", wantErr: true},   // a Deployment's replicas are needed
		{in: "DaemonSet/agent=2", wantErr: true},   // a DaemonSet runs on every node
		{in: "Deployment/server=x", wantErr: true}, // not a count
		{in: "StatefulSet/db=1", wantErr: true},    // not a kind it rolls out
		{in: "server", wantErr: true},
	} {
		got, err := ParseOperands(tc.in)
		if (err != nil) != tc.wantErr || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseOperands(%q) = %v, %v; want %v (error: %v)", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
}
