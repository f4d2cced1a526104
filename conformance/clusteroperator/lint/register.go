package lint

import (
	"context"
	"fmt"
	"strings"

	"github.com/opcert/opcert/bounded"
	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/payload"
)

func init() {
	conformance.RegisterLinter(conformance.Linter{
		Name:      "manifests",
		Mechanism: "clusteroperator",
		Seed:      "001",
		Short:     "Check a release payload's manifests against the ClusterOperator contract (seed 001)",
		Long:      help(),
		Run:       run,
	})
}

// run reads dir as a payload and lints it.
func run(ctx context.Context, dir string) (conformance.LintResult, error) {
	p, err := payload.Read(ctx, dir)
	if err != nil {
		return conformance.LintResult{}, err
	}
	checked := fmt.Sprintf("%s swept, %s, %s", count(len(p.Files), "file"), count(len(p.Manifests), "manifest"), count(len(p.ClusterOperators()), "ClusterOperator"))
	if n := len(p.Ignored); n > 0 {
		checked += fmt.Sprintf(", %s ignored", count(n, "entry"))
	}
	return conformance.LintResult{Checked: checked, Findings: Lint(p)}, nil
}

// count writes a number with its noun: "1 file", "2 entries".
func count(n int, noun string) string {
	switch {
	case n == 1:
		return "1 " + noun
	case strings.HasSuffix(noun, "y"):
		return fmt.Sprintf("%d %sies", n, strings.TrimSuffix(noun, "y"))
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// help is the linter's help text: how the directory is read, and every
// check.
func help() string {
	var b strings.Builder
	b.WriteString(`Check DIR, an operator's manifests directory or a release payload's, as the
cluster-version operator will sweep it (seed 001): the .yaml, .yml and .json
files of DIR itself, in the byte order of their names, every YAML document
and JSON object in them. Subdirectories and other files are not swept.

A ClusterOperator manifest tells the version operator which live instance to
wait for (metadata.name) and the versions it must report; the operator that
reports it must be deployed before it. That operator is the Deployment named
by the annotation ` + payload.ReportedByAnnotation + `: <namespace>/<name>, else the
Deployment of the same component (files named 0000_<runlevel>_<component>_...),
else the Deployment named <name> or <name>-operator.

A file that is not a regular file (a FIFO, a device) is an error of the
payload and is not read; a file larger than ` + bounded.Size(payload.MaxFileBytes) + `, or files adding up to more
than ` + bounded.Size(payload.MaxPayloadBytes) + `, are refused (exit 2).

Checks:
`)
	const indent = "                   " // under the statement
	for _, c := range Checks() {
		head := fmt.Sprintf("  %s %-7s ", c.ID, c.Severity)
		b.WriteString(head + wrap(c.Statement, 80-len(indent), indent) + "\n" + indent + "(" + c.Section + ")\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// wrap breaks text into lines of at most width (a longer word has its own
// line), the lines after the first indented.
func wrap(text string, width int, indent string) string {
	var b strings.Builder
	n := 0
	for i, w := range strings.Fields(text) {
		switch {
		case i == 0:
		case n+1+len(w) > width:
			b.WriteString("\n" + indent)
			n = 0
		default:
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += len(w)
	}
	return b.String()
}
