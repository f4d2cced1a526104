package staticpod

import (
	"time"

	"github.com/opcert/opcert/conformance/staticpod/contract"
)

// The further reasons library-go's checks give (docs/upstream.md), spelled as
// shipped, PodNodReady included.
const (
	UnexpectedRevision contract.Reason = "UnexpectedRevision"
	PodNotRunning      contract.Reason = "PodNotRunning"
	PodNodReady        contract.Reason = "PodNodReady"
	PodListError       contract.Reason = "PodListError"
	NetworkError       contract.Reason = "NetworkError"
)

// Profile holds the parameters of every role. A broken variant is a
// profile with one field changed.
type Profile struct {
	// Monitor are the startup monitor's parameters.
	Monitor MonitorParams
	// Installer are the installer's parameters.
	Installer InstallerParams
	// Operator are the operator's parameters.
	Operator OperatorParams
	// Pruner are the pruner's parameters.
	Pruner PrunerParams
}

// Seed is seed 003 as decision 003 reads it. Each call returns fresh values,
// so a caller may change one without touching another's.
func Seed() Profile {
	return Profile{
		Monitor: MonitorParams{
			Steps:      SeedSteps(),
			HonourLock: true, // 003 §Coordination
		},
		Installer: InstallerParams{HonourLock: true},
		Operator: OperatorParams{
			Backoff:            Backoff{First: 10 * time.Minute, Max: 6 * time.Hour},              // 003 §Retries
			NoRetry:            []contract.Reason{contract.CrashLooping, contract.NeverStartedUp}, // 003 §Retries
			ConditionType:      "Degraded",
			DegradedUntilReady: true, // 003 §Retries: Degraded while retries are attempted
			Describe:           describeSeed,
		},
		Pruner: PrunerParams{HonourLastKnownGood: true}, // 003 §Pruner
	}
}

// LibraryGo is what openshift/library-go shipped (docs/upstream.md "Static pod
// fallback"): no NeverStartedUp or CrashLooping, its own check order, a
// first retry after 20m (10m * 2^count with the count already 1) capped at
// 2h for every reason, a StaticPodFallbackRevisionDegraded condition set
// only while the mirror pod carries the annotations, and a pruner that
// does not know the last-known-good link.
func LibraryGo() Profile {
	return Profile{
		Monitor: MonitorParams{
			Steps:      LibraryGoSteps(),
			HonourLock: true,
		},
		Installer: InstallerParams{HonourLock: true},
		Operator: OperatorParams{
			Backoff:       Backoff{First: 20 * time.Minute, Max: 2 * time.Hour},
			ConditionType: "StaticPodFallbackRevisionDegraded",
			Describe:      describeLibraryGo,
		},
		Pruner: PrunerParams{},
	}
}
