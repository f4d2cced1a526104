package staticpod

import "time"

// Reason is a machine-readable fallback reason, the value of the
// fallback-reason annotation and of the Degraded condition's reason.
type Reason string

// The reasons of 003 §Readiness.
const (
	NeverStartedUp Reason = "NeverStartedUp"
	CrashLooping   Reason = "CrashLooping"
	Unhealthy      Reason = "Unhealthy"
	NotReady       Reason = "NotReady"
	EtcdUnhealthy  Reason = "EtcdUnhealthy"
)

// The further reasons library-go's checks give (UPSTREAM.md), spelled as
// shipped, PodNodReady included.
const (
	UnexpectedRevision Reason = "UnexpectedRevision"
	PodNotRunning      Reason = "PodNotRunning"
	PodNodReady        Reason = "PodNodReady"
	PodListError       Reason = "PodListError"
	NetworkError       Reason = "NetworkError"
)

// The annotations of 003 §Proposal step 1, put on the manifest the monitor
// falls back to; kubelet copies them onto the mirror pod.
const (
	AnnotationFallbackForRevision = "startup-monitor.static-pods.openshift.io/fallback-for-revision"
	AnnotationFallbackReason      = "startup-monitor.static-pods.openshift.io/fallback-reason"
	AnnotationFallbackMessage     = "startup-monitor.static-pods.openshift.io/fallback-message"
)

// Profile holds the parameters of every role. A broken variant is a
// profile with one field changed.
type Profile struct {
	Monitor   MonitorParams
	Installer InstallerParams
	Operator  OperatorParams
	Pruner    PrunerParams
}

// Seed is seed 003 as DESIGN.md reads it. Each call returns fresh values,
// so a caller may change one without touching another's.
func Seed() Profile {
	return Profile{
		Monitor: MonitorParams{
			Timeout:    5 * time.Minute, // 003 §Readiness
			Steps:      SeedSteps(),
			HonourLock: true, // 003 §Coordination
		},
		Installer: InstallerParams{HonourLock: true},
		Operator: OperatorParams{
			Backoff:            Backoff{First: 10 * time.Minute, Max: 6 * time.Hour}, // 003 §Retries
			NoRetry:            []Reason{CrashLooping, NeverStartedUp},               // 003 §Retries
			ConditionType:      "Degraded",
			DegradedUntilReady: true, // 003 §Retries: Degraded while retries are attempted
			Describe:           describeSeed,
		},
		Pruner: PrunerParams{HonourLastKnownGood: true}, // 003 §Pruner
	}
}

// LibraryGo is what openshift/library-go shipped (UPSTREAM.md "Static pod
// fallback"): no NeverStartedUp or CrashLooping, its own check order, a
// first retry after 20m (10m * 2^count with the count already 1) capped at
// 2h for every reason, a StaticPodFallbackRevisionDegraded condition set
// only while the mirror pod carries the annotations, and a pruner that
// does not know the last-known-good link.
func LibraryGo() Profile {
	return Profile{
		Monitor: MonitorParams{
			Timeout:    5 * time.Minute, // the pod template's 300s
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
