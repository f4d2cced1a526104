package componentoperator

import (
	"reflect"
	"testing"
)

func TestParseOperands(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    []Operand
		wantErr bool
	}{
		{in: "", want: nil},
		{in: "Deployment/server=3", want: []Operand{{Kind: KindDeployment, Name: "server", Replicas: 3}}},
		{in: "Deployment/server=3, DaemonSet/agent", want: []Operand{{Kind: KindDeployment, Name: "server", Replicas: 3}, {Kind: KindDaemonSet, Name: "agent"}}},
		{in: "Deployment/server", wantErr: true},
		{in: "DaemonSet/agent=2", wantErr: true},
		{in: "Deployment/server=x", wantErr: true},
		{in: "StatefulSet/db=1", wantErr: true},
		{in: "server", wantErr: true},
	} {
		got, err := ParseOperands(tc.in)
		if (err != nil) != tc.wantErr || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseOperands(%q) = %v, %v; want %v (error: %v)", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestValidate(t *testing.T) {
	ok := Config{Name: "etcd", Namespace: "etcd", Version: "4.0.1", Operands: []Operand{{Kind: KindDaemonSet, Name: "agent"}},
		StallAfter: 1, Resync: 1, RetryAfter: 1}
	if err := ok.Validate(); err != nil {
		t.Errorf("a whole config: %v", err)
	}
	bad := ok
	bad.Name, bad.Version = "", ""
	if err := bad.Validate(); err == nil || err.Error() != "no name, version given" {
		t.Errorf("no name nor version: %v", err)
	}
	bad = ok
	bad.Operands = nil
	if bad.Validate() == nil {
		t.Error("no operands: no error")
	}
}
