package workload

// Label and annotation keys the controller reads and writes.
const (
	// LabelWorkload, on every pod, names the workload it belongs to.
	LabelWorkload = "opcert.io/workload"
	// LabelTemplateHash, on every pod, is the hash of the pod template it
	// was made from (TemplateHash): a pod is updated when it matches the
	// workload's current template.
	LabelTemplateHash = "opcert.io/template-hash"
	// LabelVersion is the version a pod runs, from its template; Stick
	// matches it.
	LabelVersion = "opcert.io/version"
	// AnnotationReadyAfter, on a workload, is how long its new pods take
	// to get ready (a Go duration, "1m"), overriding Options.ReadyAfter.
	AnnotationReadyAfter = "opcert.io/ready-after"
)

// DefaultContainer names the pod's container, and is its image, when the
// template gives none.
const DefaultContainer = "operand"
