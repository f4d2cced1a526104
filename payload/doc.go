// Package payload reads a release payload's manifest directory as the
// cluster-version operator sweeps it (001 §How ClusterVersionOperator
// handles ClusterOperator in release image): the files it takes, in the
// order it takes them, the entries it leaves aside and why, and every
// manifest in those files with the file and line it starts on. The lint
// (conformance/clusteroperator/lint) and the reference version operator
// both read payloads through it.
//
// # The sweep
//
// The version operator "will only deploy files with .yaml, .yml, or .json
// extensions, like kubectl create -f DIR" and "sweeps the manifests in the
// release image in alphabetical order". Read does the same:
//
//   - Only the directory itself is swept, not its subdirectories (the
//     upstream operator reads one directory; kubectl create -f DIR without
//     -R does too). Subdirectories are listed in Ignored.
//   - The extensions are matched as written: a.YAML is ignored (with a
//     reason saying so), as a switch on the extension would do.
//   - Alphabetical order is the byte order of the file names (what
//     os.ReadDir returns), so 0000_10_x sorts before 0000_9_x and upper
//     case before lower case.
//   - image-references and release-metadata, the files a payload carries
//     besides its manifests, are ignored as Known: expected, no mistake.
//
// # Documents
//
// A file is read the way the upstream manifest reader reads it: content
// that starts with '{' is JSON (a .json file is one object; several objects
// one after another are read in turn); anything else is YAML, split into
// documents on lines that start with "---" followed by nothing, spaces or a
// comment. A document that is empty (blank lines, comments, null) is
// skipped. Each of the others is one Manifest, or one Problem when it is
// not valid YAML or JSON or not an object: a problem in one document does
// not lose the others of the file. Lines are the file's, from 1, also in
// the parser's messages (which count from the document's first line).
//
// File names of the form 0000_<runlevel>_<component>_<rest> give each of
// their manifests a run level and a component (docs/upstream.md: upgrades run
// the run levels in order, and the components of a run level in parallel).
//
// # The operator that reports a ClusterOperator
//
// The seed says the version operator is stuck when a ClusterOperator
// manifest comes before "the deployment for the operator that is supposed
// to report" it, but not how that deployment is known. Here (OperatorOf):
//
//  1. The ClusterOperator manifest may name it, with the annotation
//     ReportedByAnnotation: "opcert.io/reported-by: <namespace>/<name>" of
//     a Deployment manifest. Named, it is that one or none (a typo is not
//     papered over by guessing).
//  2. Otherwise, the first Deployment manifest of the same component (from
//     the file names) whose name is the ClusterOperator's name or that
//     name + "-operator", else the first Deployment of the component. Files
//     whose names do not start with "0000_" are one component: the payload
//     build prefixes them with 0000_50_<operator>_ (SameComponent).
//  3. Otherwise, the first Deployment anywhere in the payload whose name
//     is the ClusterOperator's name or that name + "-operator".
package payload
