package staticpod

import (
	"strings"
	"testing"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/process"
)

// One role of a node per run may be an executable: the node files every
// change made from outside as one actor's.
func TestOneNodeRoleIsAnExecutable(t *testing.T) {
	exe := conformance.Subject{Name: "exec:/bin/true", Impl: conformance.Process{Command: process.Command{"/bin/true"}}}
	ref := func(role string) conformance.Subject {
		for _, r := range Mechanism(DefaultConfig()).Roles() {
			if r.Name == role {
				return r.Subjects[0]
			}
		}
		t.Fatalf("no role %s", role)
		return conformance.Subject{}
	}
	cast := conformance.Cast{RoleStartupMonitor: ref(RoleStartupMonitor), RoleInstaller: exe,
		RoleOperator: ref(RoleOperator), RolePruner: ref(RolePruner)}
	if role, _, err := executable(cast); err != nil || role != RoleInstaller {
		t.Errorf("an executable installer: role %q, error %v; want the installer", role, err)
	}
	cast[RolePruner] = exe
	_, _, err := executable(cast)
	if err == nil || !strings.Contains(err.Error(), "one role of seed 003 per run") {
		t.Errorf("an executable installer and pruner: error %v; want a refusal saying one role per run", err)
	}
}
