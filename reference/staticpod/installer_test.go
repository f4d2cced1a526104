package staticpod

import (
	"reflect"
	"testing"

	"github.com/opcert/opcert/conformance/staticpod/contract"
)

func TestInstall(t *testing.T) {
	for _, c := range []struct {
		name     string
		p        InstallerParams
		lockHeld bool
		want     []contract.Op
	}{
		{name: "003 §Coordination: take the lock, resources, monitor, operand, release", p: Seed().Installer, want: []contract.Op{
			{Kind: contract.TakeLock},
			{Kind: contract.WriteResources, Revision: 7},
			{Kind: contract.WriteManifest, Pod: contract.StartupMonitor, Revision: 7},
			{Kind: contract.WriteManifest, Pod: contract.Operand, Revision: 7},
			{Kind: contract.ReleaseLock},
		}},
		{name: "003 §Coordination: the lock held, the installer waits", p: Seed().Installer, lockHeld: true},
		{name: "upstream library-go: the same, under its flock", p: LibraryGo().Installer, lockHeld: true},
		{name: "003 §Coordination: an installer that ignores the lock writes at once, without it", p: InstallerParams{}, lockHeld: true, want: []contract.Op{
			{Kind: contract.WriteResources, Revision: 7},
			{Kind: contract.WriteManifest, Pod: contract.StartupMonitor, Revision: 7},
			{Kind: contract.WriteManifest, Pod: contract.Operand, Revision: 7},
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Install(c.p, 7, c.lockHeld); !reflect.DeepEqual(got, c.want) {
				t.Errorf("ops\n%v\nwant\n%v", got, c.want)
			}
		})
	}
}
