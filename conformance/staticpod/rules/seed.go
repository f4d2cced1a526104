package rules

// What the rules expect, written here from the seed (and, for the
// library-go profile, from docs/upstream.md), never taken from the reference
// they judge (the judge does not borrow from the judged).

// The operand and its node paths: 003 §Proposal, §Readiness, §Coordination,
// read as decision 003 (conformance/staticpod/README.md) reads them (manifests
// in /etc/kubernetes/manifests).
const (
	operand           = "kube-apiserver"
	manifestsDir      = "/etc/kubernetes/manifests"
	operandManifest   = manifestsDir + "/kube-apiserver-pod.yaml"
	monitorManifest   = manifestsDir + "/kube-apiserver-startup-monitor-pod.yaml"
	staticPodsDir     = "/etc/kubernetes/static-pods"
	revisionDirPrefix = staticPodsDir + "/kube-apiserver-pod-"
	lastKnownGood     = staticPodsDir + "/last-known-good"
	lockFile          = "/var/lock/kube-apiserver-installer.lock"
	terminationLog    = "/var/log/kube-apiserver/termination.log"
)

// The operand's endpoints the monitor checks (003 §Readiness steps 3 and
// 4; /healthz/etcd is where library-go asks about etcd, docs/upstream.md).
const (
	probeHealthz = "kube-apiserver/healthz"
	probeEtcd    = "kube-apiserver/healthz/etcd"
	probeReadyz  = "kube-apiserver/readyz"
)

// The mirror pod and the operator's ClusterOperator (timeline contract).
const (
	mirrorNamespace    = "openshift-kube-apiserver"
	mirrorPrefix       = "kube-apiserver-"
	revisionAnnotation = "revision"
	clusterOperator    = "kube-apiserver"
	configGroup        = "config.openshift.io"
	// fieldNodeStatuses is where the operator keeps, per node, the
	// revision it last asked the installer for and how many times it has
	// asked (library-go keeps its node statuses in its operator resource).
	fieldNodeStatuses = "status.extension.nodeStatuses"
)

// The annotations of 003 §Proposal step 1.
const (
	annotationFallbackFor     = "startup-monitor.static-pods.openshift.io/fallback-for-revision"
	annotationFallbackReason  = "startup-monitor.static-pods.openshift.io/fallback-reason"
	annotationFallbackMessage = "startup-monitor.static-pods.openshift.io/fallback-message"
)

// The reasons of 003 §Readiness.
const (
	reasonNeverStartedUp = "NeverStartedUp"
	reasonCrashLooping   = "CrashLooping"
	reasonUnhealthy      = "Unhealthy"
	reasonNotReady       = "NotReady"
	reasonEtcdUnhealthy  = "EtcdUnhealthy"
)

// The further reasons library-go's startup-monitor gives, spelled as
// shipped (docs/upstream.md "Static pod fallback"; the checks live in
// cluster-kube-apiserver-operator's startupmonitorreadiness package).
const (
	reasonNetworkError       = "NetworkError"
	reasonPodNotRunning      = "PodNotRunning"
	reasonUnexpectedRevision = "UnexpectedRevision"
	reasonPodNodReady        = "PodNodReady"
)

// seedReasons is every reason 003 §Readiness names.
var seedReasons = []string{reasonNeverStartedUp, reasonCrashLooping, reasonUnhealthy, reasonNotReady, reasonEtcdUnhealthy}

// libraryGoReasons is every reason library-go's checks give (docs/upstream.md):
// no NeverStartedUp or CrashLooping, which it left as TODO.
var libraryGoReasons = []string{reasonEtcdUnhealthy, reasonUnhealthy, reasonNotReady, reasonNetworkError,
	reasonPodNotRunning, reasonUnexpectedRevision, reasonPodNodReady, "PodListError", "InvalidPod", "UnknownError"}

// The condition the operator reports a fallback with: Degraded in the seed
// (003 §Retries), StaticPodFallbackRevisionDegraded in library-go
// (docs/upstream.md).
const (
	seedCondition      = "Degraded"
	libraryGoCondition = "StaticPodFallbackRevisionDegraded"
)
